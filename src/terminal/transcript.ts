import stringWidth from 'string-width';
import wrapAnsi from 'wrap-ansi';
import type { AnyEvent, Event } from '../events/event';
import { num, obj, str } from '../providers/drafts';
import { UsageTotals } from '../providers/usage';
import type { JsonValue } from '../schema/json';
import { firstLine, outputText, toolGist } from './gist';
import { markdownRenderer, type MarkdownRenderer } from './markdown';
import { colorEnabled, palette, type Palette } from './style';
import { usageParts } from './usage-text';

/** How a transcript is drawn. */
export interface TranscriptOptions {
  /** Columns of the terminal: text is wrapped and one-line items cut to it. */
  readonly width: number;
  /** Colour on or off (see `colorEnabled`). */
  readonly color: boolean;
  /** Thinking in full (else folded to its first line), every line of a tool's output, stderr and raw lines. */
  readonly verbose?: boolean;
}

/** Width when the output is no terminal (`--format pretty` into a pipe or a file), or a terminal that does not say. */
export const DEFAULT_WIDTH = 80;

/** The options for writing a transcript to `stream`: its width and colour, by the environment's rules. */
export function transcriptOptionsFor(
  stream: { readonly isTTY?: boolean; readonly columns?: number },
  env: NodeJS.ProcessEnv,
  verbose = false,
): TranscriptOptions {
  const columns = stream.isTTY === true ? stream.columns : undefined;
  return { width: columns && columns > 0 ? columns : DEFAULT_WIDTH, color: colorEnabled(stream, env), verbose };
}

/** Lines of a tool's output shown (its last ones) unless verbose. */
const OUTPUT_LINES = 4;
/** Lines of an edit's diff shown unless verbose. */
const DIFF_LINES = 12;

/** Which kind of block was written last: blocks of assistant text stand apart from the rest by a blank line. */
type Block = 'none' | 'text' | 'item';

/**
 * Turns a run's events into what a person reads, event by event: `push` answers the text to write
 * for each (often nothing yet: streamed text waits for the end of its Markdown block, thinking
 * for its end), `end` what is left. Nothing in it knows a CLI by name: tool calls go through the
 * one table of tool names (`viewToolCall`), usage through the usage rules (`UsageTotals`).
 */
export class Transcript {
  private readonly colors: Palette;
  private readonly markdown: MarkdownRenderer;
  private readonly width: number;
  private readonly verbose: boolean;
  private last: Block = 'none';
  /** Streamed text not yet written: the Markdown block under way. */
  private streaming = '';
  /** The text streamed since the last whole message (which, when it says the same, is not written again). */
  private streamed = '';
  /** Thinking under way (consecutive thinking events, as partial output streams it). */
  private thinking = '';
  /** The thinking last written (squashed), until something else is: a CLI repeats it whole after its deltas. */
  private thinkingShown = '';
  private cwd: string | null = null;
  private usage = new UsageTotals();
  private usageSeen = false;
  private firstTime: number | null = null;
  private lastTime: number | null = null;
  /** Model steps seen (a step: assistant output after a prompt or a tool's result), when the CLI reports no turns. */
  private steps = 0;
  private inStep = false;
  /** The gist of each tool call, by id, for a result that does not follow its call. */
  private readonly gists = new Map<string, string>();
  private lastToolCall: string | null = null;
  /** The tool calls whose diff was written (an approval of one does not write it again). */
  private readonly diffShown = new Set<string>();

  constructor(options: TranscriptOptions) {
    this.colors = palette(options.color);
    this.width = Math.max(20, options.width);
    this.markdown = markdownRenderer(this.width, this.colors);
    this.verbose = options.verbose ?? false;
  }

  /** The text to write for `event` (possibly empty). */
  push(event: AnyEvent): string {
    const time = event.timestamp instanceof Date ? event.timestamp.getTime() : NaN;
    if (Number.isFinite(time)) {
      this.firstTime ??= time;
      this.lastTime = time;
    }
    // What shows nothing (usage, and unless verbose stderr and unmapped lines) leaves streamed text and thinking be.
    const shows = event.kind !== 'cost_update' && (this.verbose || (event.kind !== 'raw' && event.kind !== 'stderr'));
    let out = '';
    if (shows && event.kind !== 'thinking') {
      out += this.flushThinking();
      this.thinkingShown = '';
    }
    if (shows && event.kind !== 'assistant_delta' && event.kind !== 'assistant_message') out += this.flushText();
    return out + this.render(event);
  }

  /** The streamed text held back (the Markdown block under way), for a live view of it (the chat's status line). */
  get pending(): string {
    return this.streaming;
  }

  /** What is left to write at the end of the events. */
  end(): string {
    return this.flushThinking() + this.flushText();
  }

  private render(event: AnyEvent): string {
    const c = this.colors;
    switch (event.kind) {
      case 'run_started': {
        const p = event.payload;
        this.cwd = p.cwd;
        const model = str(p.metadata.model);
        const session = p.provider_session_id ?? event.provider_session_id;
        const parts = [event.provider, model, p.cwd, session && `session ${session}`].filter((part): part is string => !!part);
        return this.item([c.dim(this.cut(parts.join(' · ')))]);
      }
      case 'user_message': {
        this.inStep = false;
        const text = messageText(event.payload.content);
        return text.trim() === '' ? '' : this.item([c.bold(this.cut(`› ${firstLine(text)}`))]);
      }
      case 'assistant_delta':
        this.step();
        this.streamed += event.payload.content;
        this.streaming += event.payload.content;
        return this.streamBlocks();
      case 'assistant_message': {
        this.step();
        const streamed = this.streamed;
        this.streamed = '';
        const text = messageText(event.payload.content);
        // With partial output, a message repeats the text its deltas streamed.
        if (streamed !== '' && squash(text) === squash(streamed)) return this.flushText();
        return this.flushText() + (text.trim() === '' ? '' : this.text(text));
      }
      case 'thinking': {
        this.step();
        const whole = squash(event.payload.content);
        // With partial output, the whole thinking follows the deltas that streamed it.
        if (whole === squash(this.thinking) || (this.thinking === '' && whole === this.thinkingShown)) return '';
        this.thinking += event.payload.content;
        return '';
      }
      case 'tool_use':
        return this.toolUse(event);
      case 'tool_result':
        return this.toolResult(event);
      case 'approval_requested': {
        const p = event.payload;
        const details = p.details;
        const toolName = str(details.tool_name) ?? str(details.toolName) ?? p.subject;
        const input = obj(details.input) ?? obj(details.tool_input) ?? details;
        // An ACP CLI asks with its tool call (`session/request_permission`'s `toolCall`): its own kind, title and diffs.
        const acpCall = obj(details.toolCall);
        const gist = acpCall
          ? toolGist(toolName, obj(acpCall.rawInput) ?? {}, acpCall, this.cwd)
          : toolName !== null
            ? toolGist(toolName, input, {}, this.cwd)
            : { line: 'a request', diff: [] };
        // The edit's diff, unless its tool call already showed it (the CLIs here send the call first).
        const callId = str(p.metadata.tool_call_id);
        const diff = callId !== null && this.diffShown.has(callId) ? [] : this.diffBlock(gist.diff);
        return this.item([c.yellow(this.cut(`? approval asked: ${gist.line}`)), ...diff]);
      }
      case 'approval_resolved': {
        const p = event.payload;
        const decision = decisionOf(p.decision);
        const reason = p.reason ? ` (${p.reason})` : '';
        const line =
          decision === 'allow' ? c.green(`✓ allowed${reason}`) : c.red(`✗ ${decision === 'deny' ? 'denied' : decision}${reason}`);
        return this.item([this.cut(line)]);
      }
      case 'cost_update':
        this.usage.add(event.payload);
        this.usageSeen = true;
        return '';
      case 'error': {
        const p = event.payload;
        const code = p.code ? ` [${p.code}]` : '';
        const color = p.severity === 'error' || p.severity === 'fatal' ? c.red : c.yellow;
        const label = p.severity === 'error' || p.severity === 'fatal' ? '✗ error' : `! ${p.severity}`;
        const lines = wrapAnsi(`${label}${code}: ${p.message}`, this.width, { hard: true }).split('\n');
        return this.item(lines.slice(0, this.verbose ? undefined : 6).map((line) => color(line)));
      }
      case 'stderr':
        if (!this.verbose) return '';
        return this.item(
          event.payload.content
            .replace(/\n$/, '')
            .split('\n')
            .map((line) => c.dim(this.cut(`stderr: ${line}`))),
        );
      case 'raw':
        if (!this.verbose) return '';
        return this.item([
          c.dim(
            this.cut(`raw: ${typeof event.payload.content === 'string' ? event.payload.content : JSON.stringify(event.payload.content)}`),
          ),
        ]);
      case 'result':
        return this.closing(event);
    }
  }

  private step(): void {
    if (!this.inStep) this.steps++;
    this.inStep = true;
  }

  private toolUse(event: Event<'tool_use'>): string {
    const c = this.colors;
    this.step();
    const p = event.payload;
    const gist = toolGist(p.tool_name, p.input, p.metadata, this.cwd);
    if (p.tool_call_id) this.gists.set(p.tool_call_id, gist.line);
    this.lastToolCall = p.tool_call_id;
    if (p.tool_call_id && gist.diff.length > 0) this.diffShown.add(p.tool_call_id);
    return this.item([`${c.cyan('●')} ${this.cut(gist.line, 2)}`, ...this.diffBlock(gist.diff)]);
  }

  /** An edit's diff lines, coloured and indented (cut to `DIFF_LINES` unless verbose). */
  private diffBlock(diff: readonly string[]): string[] {
    const c = this.colors;
    const shown = this.verbose ? diff : diff.slice(0, DIFF_LINES);
    const lines = shown.map((line) => {
      const cut = this.cut(line, 4);
      return `    ${line.startsWith('+') ? c.green(cut) : line.startsWith('-') ? c.red(cut) : line.startsWith('@@') ? c.cyan(cut) : c.dim(cut)}`;
    });
    if (shown.length < diff.length) lines.push(c.dim(`    … ${more(diff.length - shown.length)}`));
    return lines;
  }

  private toolResult(event: Event<'tool_result'>): string {
    const c = this.colors;
    this.inStep = false;
    const p = event.payload;
    const text = outputText(p.content).replace(/\s+$/, '');
    const all = text === '' ? [] : text.split('\n');
    const shown = this.verbose ? all : all.slice(-OUTPUT_LINES);
    const lines: string[] = [];
    const id = p.tool_call_id;
    if (id !== null && id !== this.lastToolCall && this.gists.has(id)) lines.push(c.dim(this.cut(`  ↳ ${this.gists.get(id)}`)));
    this.lastToolCall = null;
    if (shown.length < all.length) lines.push(c.dim(`  ⎿ … ${more(all.length - shown.length)}`));
    const color = p.is_error ? c.red : c.dim;
    shown.forEach((line, i) => {
      const cut = this.cut(line.trimEnd(), 4);
      lines.push(`${i === 0 && lines.length === 0 ? '  ⎿ ' : '    '}${cut === '' ? '' : color(cut)}`);
    });
    if (lines.length === 0) lines.push(c.dim(p.is_error ? '  ⎿ (failed, no output)' : '  ⎿ (no output)'));
    return this.item(lines);
  }

  /** The closing line of a turn: status, duration, turns, tokens, cost. */
  private closing(event: Event<'result'>): string {
    const c = this.colors;
    const p = event.payload;
    const status = str(p.status) ?? 'ended';
    const metadata = p.metadata;
    const durationMs =
      num(metadata.duration_ms) ?? (this.firstTime !== null && this.lastTime !== null ? this.lastTime - this.firstTime : null);
    const turns = num(metadata.num_turns) ?? this.steps;
    const parts = [status === 'completed' ? c.green(`✓ ${status}`) : c.red(`✗ ${status}`)];
    if (durationMs !== null) parts.push(duration(durationMs));
    parts.push(`${turns} turn${turns === 1 ? '' : 's'}`);
    parts.push(...usageParts(this.usageSeen ? this.usage.total : null, c));
    // The next turn of a session counts its own time and steps.
    this.firstTime = null;
    this.steps = 0;
    this.inStep = false;
    const out = (this.last === 'none' ? '' : '\n') + this.joinParts(parts) + '\n';
    this.last = 'item';
    return out;
  }

  /** `parts` joined by ` · `, a new line started at a separator rather than inside a part when the width is reached. */
  private joinParts(parts: readonly string[]): string {
    const separator = this.colors.dim(' · ');
    const lines: string[] = [];
    for (const part of parts) {
      const current = lines.length > 0 ? lines[lines.length - 1] : null;
      if (current !== null && stringWidth(current) + 3 + stringWidth(part) <= this.width)
        lines[lines.length - 1] = current + separator + part;
      else lines.push(part);
    }
    return lines.map((line) => this.cut(line)).join('\n');
  }

  /** Writes a one-line item block (tool calls, approvals, errors): after text, a blank line first. */
  private item(lines: readonly string[]): string {
    if (lines.length === 0) return '';
    const gap = this.last === 'text' ? '\n' : '';
    this.last = 'item';
    return `${gap}${lines.map((line) => line.trimEnd()).join('\n')}\n`;
  }

  /** Writes Markdown text as a block. */
  private text(markdown: string): string {
    const rendered = this.markdown(markdown)
      .split('\n')
      .map((line) => line.trimEnd())
      .join('\n');
    if (rendered.trim() === '') return '';
    const gap = this.last === 'none' ? '' : '\n';
    this.last = 'text';
    return `${gap}${rendered}\n`;
  }

  /** The streamed text's complete Markdown blocks (up to its last blank line outside a code fence). */
  private streamBlocks(): string {
    const end = blockEnd(this.streaming);
    if (end <= 0) return '';
    const done = this.streaming.slice(0, end);
    this.streaming = this.streaming.slice(end);
    return this.text(done);
  }

  private flushText(): string {
    const rest = this.streaming;
    this.streaming = '';
    return rest.trim() === '' ? '' : this.text(rest);
  }

  /** Thinking, dimmed: folded to its first line unless verbose. */
  private flushThinking(): string {
    const thinking = this.thinking.trim();
    this.thinking = '';
    if (thinking === '') return '';
    this.thinkingShown = squash(thinking);
    const c = this.colors;
    if (!this.verbose) return this.item([c.dim(c.italic(this.cut(`✻ ${firstLine(thinking)}`)))]);
    const wrapped = wrapAnsi(thinking, this.width - 2, { hard: true }).split('\n');
    return this.item(wrapped.map((line, i) => c.dim(c.italic(`${i === 0 ? '✻' : ' '} ${line}`))));
  }

  /** `text` cut to the width less `indent` columns, ending in `…` when cut. */
  private cut(text: string, indent = 0): string {
    const room = this.width - indent;
    const flat = text.replace(/\t/g, '  ').replace(/[\r\n]+/g, ' ');
    if (stringWidth(flat) <= room) return flat;
    return `${wrapAnsi(flat, room - 1, { hard: true, trim: false, wordWrap: false }).split('\n')[0]}…`;
  }
}

/** Where the last complete Markdown block of `text` ends (after a blank line outside a code fence), or -1. */
function blockEnd(text: string): number {
  let end = -1;
  let fenced = false;
  let offset = 0;
  for (const line of text.split('\n')) {
    const next = offset + line.length + 1;
    if (next > text.length) break; // the last line is not complete yet
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    else if (!fenced && line.trim() === '' && offset > 0) end = next;
    offset = next;
  }
  return end;
}

/** The text of a message's content blocks (text blocks and plain strings). */
function messageText(content: readonly JsonValue[]): string {
  return content
    .map((block) => (typeof block === 'string' ? block : (str(obj(block)?.type) ?? 'text') === 'text' ? (str(obj(block)?.text) ?? '') : ''))
    .filter((text) => text !== '')
    .join('\n\n');
}

/** `text` with its white space squashed, to compare a message with what was streamed of it. */
const squash = (text: string) => text.replace(/\s+/g, ' ').trim();

/** An approval's decision as allow, deny, or its own words. */
function decisionOf(decision: JsonValue): string {
  const text = str(decision) ?? str(obj(decision)?.decision) ?? str(obj(decision)?.behavior) ?? JSON.stringify(decision);
  if (/^(allow|approved?|accept(ed)?|yes|always)/i.test(text)) return 'allow';
  if (/^(deny|denied|reject(ed)?|no|cancel(l?ed)?|abort)/i.test(text)) return 'deny';
  return text;
}

const more = (n: number) => `${n} more line${n === 1 ? '' : 's'}`;

/** `0.6 s`, `42.0 s`, `3 min 5 s`. */
function duration(ms: number): string {
  if (ms < 60_000) return `${(Math.max(0, ms) / 1000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}
