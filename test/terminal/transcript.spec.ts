import 'reflect-metadata';
import { stripVTControlCharacters } from 'node:util';
import { Event, type AnyEvent } from '../../src';
import type { EventKind } from '../../src/registry/kinds';
import { colorEnabled } from '../../src/terminal/style';
import { Transcript, transcriptOptionsFor } from '../../src/terminal/transcript';

/*
 * The transcript's parts that the provider fixtures do not all show (their transcripts are the
 * snapshots of test/cli-transcript.spec.ts): edit diffs, MCP tools, Markdown streamed across
 * deltas, approvals, long outputs, and the colour and width rules.
 */

const at = new Date('2026-01-01T00:00:00.000Z');
const event = (kind: EventKind, payload: Record<string, unknown>, seconds = 0) =>
  Event.create(kind, { provider: 'claude', timestamp: new Date(at.getTime() + seconds * 1000), payload } as never) as AnyEvent;

function render(events: AnyEvent[], options: { color?: boolean; width?: number; verbose?: boolean } = {}): string {
  const transcript = new Transcript({ width: options.width ?? 80, color: options.color ?? false, verbose: options.verbose });
  return events.map((e) => transcript.push(e)).join('') + transcript.end();
}

const started = event('run_started', { cwd: '/repo', metadata: { model: 'm1' } });

describe('tool calls', () => {
  it('one line each with its gist, paths relative to the working directory; an MCP tool as server › tool', () => {
    const text = render([
      started,
      event('tool_use', { tool_name: 'Read', tool_call_id: 'a', input: { file_path: '/repo/README.md' } }),
      event('tool_use', { tool_name: 'Bash', tool_call_id: 'b', input: { command: 'npm test\nnpm run lint' } }),
      event('tool_use', { tool_name: 'mcp__github__create_issue', tool_call_id: 'c', input: { title: 'x' } }),
      event('tool_use', { tool_name: 'echo/echo', tool_call_id: 'd', input: {} }),
    ]);
    expect(text.split('\n').slice(1, 5)).toEqual([
      '● Read README.md',
      '● $ npm test …',
      '● github › create_issue {"title":"x"}',
      '● echo › echo',
    ]);
  });

  it("an edit's diff under its line, added lines green and removed red", () => {
    const edit = event('tool_use', {
      tool_name: 'Edit',
      tool_call_id: 'e',
      input: { file_path: '/repo/src/a.ts', old_string: 'const a = 1;\nconst b = 2;\n', new_string: 'const a = 1;\nconst b = 3;\n' },
    });
    const plain = render([started, edit]);
    expect(plain.split('\n').slice(1, 6)).toEqual([
      '● Edit src/a.ts',
      '    @@ -1,2 +1,2 @@',
      '     const a = 1;',
      '    -const b = 2;',
      '    +const b = 3;',
    ]);
    const colored = render([started, edit], { color: true });
    expect(colored).toContain('\u001b[32m+const b = 3;\u001b[39m');
    expect(colored).toContain('\u001b[31m-const b = 2;\u001b[39m');
    expect(stripVTControlCharacters(colored)).toBe(plain);
  });

  it("a long output: its last lines, with '… N more lines' (all of it with verbose); a failed one in red", () => {
    const lines = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n');
    const events = [
      event('tool_use', { tool_name: 'Bash', tool_call_id: 'a', input: { command: 'seq' } }),
      event('tool_result', { tool_call_id: 'a', content: [{ type: 'text', text: lines }] }),
    ];
    expect(render(events)).toBe('● $ seq\n  ⎿ … 6 more lines\n    line 7\n    line 8\n    line 9\n    line 10\n');
    expect(render(events, { verbose: true }).split('\n')).toHaveLength(12);
    const failed = event('tool_result', { tool_call_id: 'a', content: 'boom', is_error: true });
    expect(render([events[0], failed], { color: true })).toContain('\u001b[31mboom\u001b[39m');
  });
});

describe('text and thinking', () => {
  it('streamed Markdown is written block by block, and the whole message after it is not written again', () => {
    const transcript = new Transcript({ width: 80, color: false });
    const deltas = ['# Ti', 'tle\n\nSome **bo', 'ld** text.\n\n```sh\necho a\n\n', 'echo b\n```\n\nEnd.'];
    const written = deltas.map((content) => transcript.push(event('assistant_delta', { content })));
    // A block is written once a blank line ends it; a blank line inside a code fence does not.
    expect(written).toEqual(['', 'Title\n', '\nSome bold text.\n', '\n  echo a\n\n  echo b\n']);
    const message = event('assistant_message', { content: [{ type: 'text', text: deltas.join('') }] });
    expect(transcript.push(message)).toBe('\nEnd.\n');
    expect(transcript.end()).toBe('');
  });

  it('thinking dimmed and folded to its first line; in full with verbose; the whole after its deltas once', () => {
    const thinking = ['First thought.\n', 'Second thought.'].map((content) => event('thinking', { content }));
    const whole = event('thinking', { content: 'First thought.\nSecond thought.' });
    const answer = event('assistant_message', { content: [{ type: 'text', text: 'Done.' }] });
    expect(render([...thinking, whole, answer])).toBe('✻ First thought. …\n\nDone.\n');
    expect(render([...thinking, whole, answer], { verbose: true })).toBe('✻ First thought.\n  Second thought.\n\nDone.\n');
    expect(render([...thinking, answer], { color: true })).toBe('\u001b[2m\u001b[3m✻ First thought. …\u001b[23m\u001b[22m\n\nDone.\n');
  });
});

describe('approvals, errors and the closing line', () => {
  it('an approval asked with its gist and its answer; an error in red with its code', () => {
    const text = render(
      [
        event('approval_requested', {
          approval_id: '1',
          subject: 'Bash',
          details: { tool_name: 'Bash', input: { command: 'rm -rf build' } },
        }),
        event('approval_resolved', { approval_id: '1', decision: 'deny', reason: 'not now' }),
        event('error', { message: 'overloaded', code: 'overloaded', severity: 'error' }),
      ],
      { color: true },
    );
    expect(stripVTControlCharacters(text)).toBe('? approval asked: $ rm -rf build\n✗ denied (not now)\n✗ error [overloaded]: overloaded\n');
    expect(text).toContain('\u001b[31m✗ error [overloaded]: overloaded\u001b[39m');
  });

  it("an edit's approval shows its diff, unless its tool call already did", () => {
    const input = { file_path: '/repo/note.txt', content: 'hello\n' };
    const asked = event('approval_requested', {
      approval_id: '1',
      subject: 'Write',
      details: { tool_name: 'Write', input },
      metadata: { tool_call_id: 'w' },
    });
    expect(render([started, asked]).split('\n').slice(1)).toEqual([
      '? approval asked: Write note.txt',
      '    @@ -1,0 +1,1 @@',
      '    +hello',
      '',
    ]);
    const call = event('tool_use', { tool_name: 'Write', tool_call_id: 'w', input });
    expect(render([started, call, asked]).split('\n').slice(1)).toEqual([
      '● Write note.txt',
      '    @@ -1,0 +1,1 @@',
      '    +hello',
      '? approval asked: Write note.txt',
      '',
    ]);
  });

  it("an ACP CLI's approval: the gist and diff of its tool call (Gemini CLI sends no raw input)", () => {
    const asked = event('approval_requested', {
      approval_id: '1',
      subject: 'Writing to note.txt',
      details: {
        toolCall: {
          toolCallId: 'g',
          title: 'Writing to note.txt',
          kind: 'edit',
          content: [{ type: 'diff', path: '/repo/note.txt', oldText: '', newText: 'hello\n' }],
        },
      },
      metadata: { tool_call_id: 'g' },
    });
    expect(render([started, asked]).split('\n').slice(1)).toEqual([
      '? approval asked: Writing to note.txt',
      '    @@ -1,0 +1,1 @@',
      '    +hello',
      '',
    ]);
  });

  it('status, duration, turns, tokens with the cache, and the cost (or that none was reported)', () => {
    const usage = (cost: number | null) =>
      event('cost_update', {
        input_tokens: 12_000,
        output_tokens: 300,
        total_tokens: 12_300,
        cost_usd: cost ?? 0,
        metadata: { aggregation: 'cumulative', cost_reported: cost !== null, cache_read_input_tokens: 10_000, cache_write_input_tokens: 0 },
      });
    const turn = (cost: number | null) => [
      started,
      event('tool_use', { tool_name: 'Bash', tool_call_id: 'a', input: { command: 'ls' } }, 1),
      event('tool_result', { tool_call_id: 'a', content: 'x' }, 2),
      event('assistant_message', { content: [{ type: 'text', text: 'ok' }] }, 3),
      usage(cost),
      event('result', { status: 'completed' }, 75),
    ];
    expect(render(turn(0.1234), { width: 120 }).split('\n').at(-2)).toBe(
      '✓ completed · 1 min 15 s · 2 turns · 12,000 in / 300 out tokens · cache 10,000 read · $0.12',
    );
    expect(render(turn(null)).split('\n').at(-2)).toMatch(/ · no price reported$/);
    expect(render([event('result', { status: 'failed', metadata: { duration_ms: 1500, num_turns: 3 } })])).toBe(
      '✗ failed · 1.5 s · 3 turns · no usage reported\n',
    );
  });

  it('one-line items are cut to the width, ending in …', () => {
    const text = render([event('tool_use', { tool_name: 'Bash', tool_call_id: 'a', input: { command: 'x'.repeat(100) } })], { width: 30 });
    expect(text).toBe(`● $ ${'x'.repeat(25)}…\n`);
  });
});

describe('colour and width', () => {
  it.each([
    [{}, true, true],
    [{}, false, false],
    [{ NO_COLOR: '1' }, true, false],
    [{ NO_COLOR: '' }, true, true],
    [{ TERM: 'dumb' }, true, false],
    [{ FORCE_COLOR: '1' }, false, true],
    [{ FORCE_COLOR: '1', NO_COLOR: '1' }, true, true],
    [{ FORCE_COLOR: '0' }, true, false],
    [{ FORCE_COLOR: 'false' }, true, false],
  ])('env %j, a terminal: %s → colour %s', (env, isTTY, expected) => {
    expect(colorEnabled({ isTTY }, env)).toBe(expected);
  });

  it("a terminal's width; 80 columns elsewhere", () => {
    expect(transcriptOptionsFor({ isTTY: true, columns: 120 }, {}).width).toBe(120);
    expect(transcriptOptionsFor({ isTTY: true }, {}).width).toBe(80);
    expect(transcriptOptionsFor({ columns: 120 }, {}).width).toBe(80);
  });
});
