/*
 * The page's text rules: what the library's projections do to a run's events before a client reads
 * them, for a browser (no build step, no modules). Each function is the rule of the library function
 * it names, and test/scale/runs-page.spec.ts checks them against it over generated inputs: change one,
 * change both. After them, the page's own wording of a record's figures (usage, changes, times),
 * which has no library counterpart (tested there too).
 */
'use strict';
var pageText = (function () {
  function isObject(value) {
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  }

  /**
   * One stream of text (src/projections/streamed-text.ts, StreamedText): CLIs that stream deltas
   * send the whole message after them, and it adds only what they did not.
   */
  function StreamedText() {
    this.streamed = '';
  }
  StreamedText.prototype.delta = function (text) {
    this.streamed += text;
    return text;
  };
  StreamedText.prototype.whole = function (text) {
    var streamed = this.streamed;
    this.streamed = '';
    if (streamed === '') return text;
    if (text.indexOf(streamed) === 0) return text.slice(streamed.length);
    // Deltas that say more than the message (a message cut short): nothing is new.
    if (streamed.indexOf(text) === 0) return '';
    return text;
  };

  /** An assistant message's text blocks, joined (src/projections/approval-call.ts, messageText). */
  function messageText(content) {
    return (Array.isArray(content) ? content : [])
      .map(function (block) {
        if (typeof block === 'string') return block;
        return isObject(block) && block.type === 'text' && typeof block.text === 'string' ? block.text : '';
      })
      .join('');
  }

  /** Fields of a tool's result object that hold its output as text, by preference (as TEXT_FIELDS there). */
  var TEXT_FIELDS = ['text', 'output', 'stdout', 'aggregated_output', 'aggregatedOutput', 'diffString', 'message', 'error'];

  function blockText(block) {
    if (typeof block === 'string') return block;
    return isObject(block) && typeof block.text === 'string' ? block.text : null;
  }

  /** A tool result's content as text (src/projections/tool-output.ts, toolOutputText). */
  function toolOutputText(content) {
    if (content === null || content === undefined) return '';
    if (typeof content === 'string') return content;
    if (Array.isArray(content)) {
      var texts = content.map(blockText);
      if (
        texts.every(function (text) {
          return text !== null;
        })
      )
        return texts.join('\n');
      return JSON.stringify(content);
    }
    if (typeof content === 'object') {
      if (Array.isArray(content.content)) return toolOutputText(content.content);
      for (var i = 0; i < TEXT_FIELDS.length; i++) {
        var value = content[TEXT_FIELDS[i]];
        if (typeof value === 'string' && value !== '') return value;
      }
    }
    return JSON.stringify(content);
  }

  /**
   * Tokens and price (a `cost_update` payload, or a record's `usage`): "N tokens (I in, O out) · $P",
   * the price left out when the CLI reported none ($0 would say it was free); '' for no usage.
   */
  function costText(usage) {
    if (!isObject(usage)) return '';
    var text = (usage.total_tokens || 0) + ' tokens (' + (usage.input_tokens || 0) + ' in, ' + (usage.output_tokens || 0) + ' out)';
    if (typeof usage.cost_usd === 'number' && usage.cost_usd > 0) text += ' · $' + usage.cost_usd.toFixed(4);
    return text;
  }

  /** A record's `changes`: "N files changed, +I −D"; '' when none (no worktree, or nothing changed). */
  function changesText(changes) {
    if (!isObject(changes) || !(changes.files > 0)) return '';
    return changes.files + (changes.files === 1 ? ' file' : ' files') + ' changed, +' + changes.insertions + ' −' + changes.deletions;
  }

  function twoDigits(number) {
    return (number < 10 ? '0' : '') + number;
  }

  /** An ISO 8601 time as "YYYY-MM-DD HH:MM" in the browser's time zone; '' for none. */
  function whenText(iso) {
    var date = new Date(iso);
    if (typeof iso !== 'string' || isNaN(date.getTime())) return '';
    return (
      date.getFullYear() +
      '-' +
      twoDigits(date.getMonth() + 1) +
      '-' +
      twoDigits(date.getDate()) +
      ' ' +
      twoDigits(date.getHours()) +
      ':' +
      twoDigits(date.getMinutes())
    );
  }

  return {
    isObject: isObject,
    StreamedText: StreamedText,
    messageText: messageText,
    toolOutputText: toolOutputText,
    costText: costText,
    changesText: changesText,
    whenText: whenText,
  };
})();
