/*
 * The runs page's script (served by src/scale/runs-page.ts; text.js before it): start a run and watch
 * it as its events arrive over GET /runs/:id/events. Vanilla JS, nothing fetched from elsewhere.
 *
 * The run id lives in the URL (#run=<id>): a reload opens the stream afresh, which replays the run
 * from its first event, so the view is rebuilt from the events alone and then follows the run.
 * Event data only ever reaches the page as textContent, never as markup.
 *
 * The API's token comes in the URL's fragment (/#token=…, which no request carries): the page keeps
 * it in the tab's sessionStorage, takes it out of the address bar, and sends it as a bearer token
 * with every call. The event stream is read with fetch (EventSource cannot send a header), resuming
 * from the last entry id with Last-Event-ID as EventSource would.
 */
'use strict';
(function () {
  var $ = function (id) {
    return document.getElementById(id);
  };
  // The library's text rules (text.js).
  var isObject = pageText.isObject,
    StreamedText = pageText.StreamedText,
    messageText = pageText.messageText,
    outputText = pageText.toolOutputText;
  /** The run on screen: its id and its event stream. */
  var current = null;

  /** The bearer token: from the fragment once (then out of the address bar), else the tab's copy. */
  var token = (function () {
    var params = new URLSearchParams(location.hash.slice(1));
    var given = params.get('token');
    if (given) {
      sessionStorage.setItem('cli-subprocess-core-token', given);
      params.delete('token');
      history.replaceState(null, '', location.pathname + (params.toString() ? '#' + params.toString() : ''));
    }
    return sessionStorage.getItem('cli-subprocess-core-token') || '';
  })();
  function authorized(headers) {
    headers.authorization = 'Bearer ' + token;
    return headers;
  }

  /** An element with its class, test id and text: event data goes in as textContent only. */
  function el(tag, className, testId, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (testId) node.dataset.testid = testId;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function clip(text) {
    return text.length > 2000 ? text.slice(0, 2000) + '…' : text;
  }
  function runPath(runId, rest) {
    return '/runs/' + encodeURIComponent(runId) + rest;
  }

  function post(path, body) {
    return fetch(path, {
      method: 'POST',
      headers: authorized({ 'content-type': 'application/json' }),
      body: JSON.stringify(body || {}),
    }).then(function (response) {
      return response
        .json()
        .catch(function () {
          return {};
        })
        .then(function (answer) {
          if (!response.ok) throw new Error(answer.error || 'HTTP ' + response.status);
          return answer;
        });
    });
  }

  /** A tool's input for reading: its shell command when it has one, else its JSON. */
  function inputText(input) {
    if (isObject(input) && typeof input.command === 'string') return '$ ' + input.command;
    return clip(JSON.stringify(input === undefined ? {} : input, null, 2));
  }

  /**
   * What an approval asks, in a line or two: the call's input (Claude's input, an ACP agent's
   * toolCall.rawInput, Codex's command or file changes) and the CLI's own words for it.
   */
  function approvalSummary(details) {
    var d = isObject(details) ? details : {};
    var call = isObject(d.toolCall) ? d.toolCall : {};
    var input = isObject(d.input)
      ? d.input
      : isObject(call.rawInput)
        ? call.rawInput
        : typeof d.command === 'string'
          ? { command: d.command }
          : null;
    var what = input ? inputText(input) : Array.isArray(d.changes) ? d.changes.length + ' file change(s)' : clip(JSON.stringify(d));
    var why = [d.description, call.title, d.reason].filter(function (text) {
      return typeof text === 'string' && text !== '';
    })[0];
    return why ? why + '\n' + what : what;
  }

  function setStatus(state, text) {
    $('status').dataset.state = state;
    $('status').textContent = text;
  }

  /**
   * Follows a server-sent event stream with fetch, as EventSource would: each message's data to
   * onMessage, then onEnd at 'event: end' (or a 404: the run is unknown); a broken connection is
   * opened again a second later from the last id seen. Answers a function that stops it.
   */
  function followEvents(path, onMessage, onEnd, onState) {
    var stopped = false;
    var lastId = null;
    var controller = null;
    function connect() {
      if (stopped) return;
      controller = new AbortController();
      var headers = authorized({ accept: 'text/event-stream' });
      if (lastId !== null) headers['last-event-id'] = lastId;
      fetch(path, { headers: headers, signal: controller.signal })
        .then(function (response) {
          if (response.status === 404) {
            stopped = true;
            onEnd();
            return;
          }
          if (!response.ok || !response.body) throw new Error('HTTP ' + response.status);
          onState(true);
          var reader = response.body.getReader();
          var decoder = new TextDecoder();
          var buffer = '';
          function pump() {
            return reader.read().then(function (chunk) {
              if (chunk.done) throw new Error('the stream broke off');
              buffer += decoder.decode(chunk.value, { stream: true });
              var at;
              while ((at = buffer.indexOf('\n\n')) >= 0) {
                var frame = buffer.slice(0, at);
                buffer = buffer.slice(at + 2);
                var id = null,
                  name = 'message',
                  data = [];
                frame.split('\n').forEach(function (line) {
                  if (line.indexOf('id: ') === 0) id = line.slice(4);
                  else if (line.indexOf('event: ') === 0) name = line.slice(7);
                  else if (line.indexOf('data: ') === 0) data.push(line.slice(6));
                });
                if (name === 'end') {
                  stopped = true;
                  controller.abort();
                  onEnd();
                  return;
                }
                if (id !== null) lastId = id;
                if (data.length > 0 && name === 'message') onMessage(data.join('\n'));
              }
              return pump();
            });
          }
          return pump();
        })
        .catch(function () {
          if (stopped) return;
          onState(false);
          setTimeout(connect, 1000);
        });
    }
    connect();
    return function () {
      stopped = true;
      if (controller) controller.abort();
    };
  }

  /** Shows the run runId from its first event on (or nothing when there is none). */
  function show(runId) {
    if (current) current.stop();
    current = null;
    $('transcript').replaceChildren();
    $('run').hidden = !runId;
    if (!runId) return;
    $('run-id').textContent = runId;
    $('cost').textContent = '';
    $('connection').hidden = true;
    $('cancel').disabled = false;
    setStatus('waiting', 'waiting for a worker');
    // Without a Last-Event-ID the stream starts at the run's first event: the view is rebuilt from them.
    var view = new RunView(runId);
    var stop = followEvents(
      runPath(runId, '/events'),
      function (data) {
        view.render(JSON.parse(data));
      },
      // The run is over (or unknown): nothing more to follow.
      function () {
        $('connection').hidden = true;
        view.ended();
      },
      function (connected) {
        $('connection').hidden = connected;
      },
    );
    current = { runId: runId, stop: stop };
  }

  /** The transcript of one run, built event by event. */
  function RunView(runId) {
    this.runId = runId;
    this.transcript = $('transcript');
    this.text = new StreamedText();
    this.thought = new StreamedText();
    /** The text or thinking block deltas are appended to; null after anything else. */
    this.open = null;
    this.tools = new Map();
    this.approvals = new Map();
    this.events = 0;
    this.finished = false;
  }

  RunView.prototype.render = function (event) {
    var p = event.payload || {};
    if (this.events++ === 0 && !this.finished) setStatus('running', 'running');
    switch (event.kind) {
      case 'assistant_delta':
        this.say('text', this.text.delta(p.content || ''));
        break;
      case 'assistant_message':
        this.whole('text', this.text.whole(messageText(p.content)));
        break;
      case 'thinking':
        if (isObject(p.metadata) && p.metadata.delta === true) this.say('thinking', this.thought.delta(p.content || ''));
        else this.whole('thinking', this.thought.whole(p.content || ''));
        break;
      case 'tool_use':
        this.tool(p.tool_call_id, p.tool_name, p.input);
        break;
      case 'tool_result':
        this.toolResult(p);
        break;
      case 'approval_requested':
        this.requested(p);
        break;
      case 'approval_resolved':
        this.resolved(p);
        break;
      case 'cost_update':
        this.cost(p);
        break;
      case 'error':
        this.error(p);
        break;
      case 'result':
        this.result(p);
        break;
      default:
        break;
    }
  };

  /** Streamed text or thinking: appended to the open block of its kind, or a new block. */
  RunView.prototype.say = function (kind, text) {
    if (text === '') return;
    if (!this.open || this.open.kind !== kind) {
      var node = kind === 'text' ? el('div', 'assistant-text', 'assistant-text') : el('div', 'thinking', 'thinking');
      this.add(node);
      this.open = { kind: kind, node: node };
    }
    this.open.node.textContent += text;
  };

  /** A whole message: what its deltas did not show, then its block is closed (the next message is a new one). */
  RunView.prototype.whole = function (kind, rest) {
    this.say(kind, rest);
    if (this.open && this.open.kind === kind) this.open = null;
  };

  RunView.prototype.add = function (node) {
    this.open = null;
    this.transcript.append(node);
  };

  /** A tool call's card, made once per call id (a CLI may announce a call again). */
  RunView.prototype.tool = function (id, name, input) {
    var card = id ? this.tools.get(id) : undefined;
    if (card) return card;
    card = el('div', 'tool', 'tool-call');
    card.dataset.state = 'running';
    if (id) card.dataset.toolCallId = id;
    card.append(el('div', 'tool-name', 'tool-name', name || 'tool'), el('pre', 'tool-input', 'tool-input', inputText(input)));
    this.add(card);
    if (id) this.tools.set(id, card);
    return card;
  };

  RunView.prototype.toolResult = function (p) {
    var card = this.tool(p.tool_call_id, null, {});
    var output = card.querySelector('[data-testid="tool-output"]') || card.appendChild(el('pre', 'tool-output', 'tool-output'));
    output.textContent = clip(outputText(p.content)) || (p.is_error ? 'The tool call failed.' : '(no output)');
    card.dataset.state = p.is_error ? 'error' : 'done';
  };

  /** An approval: in its tool call's card when that came first, with buttons that send the answer. */
  RunView.prototype.requested = function (p) {
    if (!p.approval_id || this.approvals.has(p.approval_id)) return;
    var approvalId = p.approval_id;
    var box = el('div', 'approval', 'approval');
    box.dataset.approvalId = approvalId;
    box.dataset.state = 'pending';
    var allow = el('button', 'allow', 'approval-allow', 'Allow');
    var deny = el('button', 'deny', 'approval-deny', 'Deny');
    var decision = el('span', 'approval-decision', 'approval-decision', 'waiting for an answer');
    allow.type = deny.type = 'button';
    var runId = this.runId;
    var answer = function (choice) {
      allow.disabled = deny.disabled = true;
      decision.textContent = 'sending ' + choice + '…';
      post(runPath(runId, '/approvals/' + encodeURIComponent(approvalId)), { decision: choice }).then(
        function () {
          if (box.dataset.state === 'pending') decision.textContent = choice + ' sent, waiting for the CLI';
        },
        function (error) {
          if (box.dataset.state !== 'pending') return;
          allow.disabled = deny.disabled = false;
          decision.textContent = 'not sent: ' + error.message;
        },
      );
    };
    allow.onclick = function () {
      answer('allow');
    };
    deny.onclick = function () {
      answer('deny');
    };
    var actions = el('div', 'approval-actions');
    actions.append(allow, deny, decision);
    box.append(
      el('div', 'approval-subject', 'approval-subject', 'Approve ' + (p.subject || 'a tool call') + '?'),
      el('pre', 'approval-details', 'approval-details', approvalSummary(p.details)),
      actions,
    );
    var card = isObject(p.metadata) && p.metadata.tool_call_id ? this.tools.get(p.metadata.tool_call_id) : undefined;
    if (card) card.append(box);
    else this.add(box);
    this.approvals.set(approvalId, { box: box, buttons: [allow, deny], decision: decision });
  };

  var DECIDED = new Map([
    ['allow', 'Allowed'],
    ['deny', 'Denied'],
    ['cancelled', 'Withdrawn'],
  ]);
  var BY = new Map([
    ['policy', 'by the run’s approval policy'],
    ['timeout', 'nobody answered in time'],
    ['withdrawn', 'the turn ended first'],
  ]);

  RunView.prototype.resolved = function (p) {
    var approval = this.approvals.get(p.approval_id);
    if (!approval) return;
    var decision = String(p.decision);
    approval.box.dataset.state = decision;
    approval.buttons.forEach(function (button) {
      button.disabled = true;
    });
    var by = isObject(p.metadata) ? BY.get(p.metadata.answered_by) : undefined;
    approval.decision.textContent = [DECIDED.get(decision) || decision, by, p.reason].filter(Boolean).join(' · ');
  };

  RunView.prototype.cost = function (p) {
    var text = (p.total_tokens || 0) + ' tokens (' + (p.input_tokens || 0) + ' in, ' + (p.output_tokens || 0) + ' out)';
    // Some CLIs report no cost: $0 would say it was free.
    if (p.cost_usd > 0) text += ' · $' + p.cost_usd.toFixed(4);
    $('cost').textContent = text;
  };

  RunView.prototype.error = function (p) {
    var node = el(
      'div',
      'error',
      'error',
      (p.severity || 'error') + (p.code ? ' (' + p.code + ')' : '') + ': ' + (p.message || 'no message'),
    );
    node.dataset.severity = p.severity || 'error';
    this.add(node);
  };

  RunView.prototype.result = function (p) {
    var status = String(p.status);
    var node = el('div', 'result', 'result', 'Run ' + status + (p.stop_reason ? ' (' + p.stop_reason + ')' : ''));
    node.dataset.status = status;
    this.add(node);
    this.finished = true;
    setStatus(status, status);
    $('cancel').disabled = true;
  };

  /** The stream ended: the run is over (an unknown or expired run ends at once, with no events). */
  RunView.prototype.ended = function () {
    $('cancel').disabled = true;
    // An approval left open (a run whose worker was lost) can no longer be answered.
    this.approvals.forEach(function (approval) {
      approval.buttons.forEach(function (button) {
        button.disabled = true;
      });
    });
    if (this.events === 0) this.add(el('div', 'notice', 'notice', 'No events: this server does not know the run (or it expired).'));
    if (!this.finished) setStatus('ended', 'ended');
  };

  $('start-form').addEventListener('submit', function (submit) {
    submit.preventDefault();
    var body = { provider: $('provider').value, prompt: $('prompt').value, approvals: $('approvals').value };
    if ($('model').value.trim() !== '') body.model = $('model').value.trim();
    $('start').disabled = true;
    $('form-error').hidden = true;
    post('/runs', body)
      .then(
        // The hash names the run: hashchange shows it, and a reload shows it again.
        function (answer) {
          location.hash = 'run=' + encodeURIComponent(answer.id);
        },
        function (error) {
          $('form-error').textContent = error.message;
          $('form-error').hidden = false;
        },
      )
      .finally(function () {
        $('start').disabled = false;
      });
  });

  $('cancel').addEventListener('click', function () {
    if (!current) return;
    $('cancel').disabled = true;
    post(runPath(current.runId, '/cancel')).catch(function () {
      $('cancel').disabled = false;
    });
  });

  function runInHash() {
    return new URLSearchParams(location.hash.slice(1)).get('run');
  }
  window.addEventListener('hashchange', function () {
    show(runInHash());
  });
  show(runInHash());
})();
