import { existsSync, readFileSync } from 'node:fs';
import { SESSION_CLI_IDS } from '../../src/clis';
import { captures, hostAction, play, type Played } from './captures';

/*
 * Every session capture of a real CLI, played through its protocol: the protocol answers as the
 * capture's host did, and the events are exactly the capture's golden events (written by
 * scripts/write-goldens.ts, read by a person).
 */

const all = captures();

it('every CLI that holds sessions has captures', () => {
  expect(new Set(all.map((capture) => capture.cli))).toEqual(new Set(SESSION_CLI_IDS));
});

describe.each(all.map((capture) => [`${capture.cli}/${capture.name}`, capture] as const))('%s', (_label, capture) => {
  let played: Played;
  beforeAll(async () => {
    played = await play(capture);
  });

  it('decodes to its golden events', () => {
    expect(existsSync(capture.goldenPath)).toBe(true);
    const golden = readFileSync(capture.goldenPath, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as unknown);
    expect(played.events).toEqual(golden);
  });

  it('writes what the host wrote: the handshake, each prompt, answer and interrupt, in order', () => {
    expect(played.failures).toEqual([]);
    const shape = (message: Record<string, unknown>) => {
      const action = hostAction(message as never);
      if (action?.type === 'answer') return `answer ${action.id} ${action.answer?.decision ?? 'cancel'}`;
      if (action) return action.type;
      return String(message.method ?? (message.request as { subtype?: string } | undefined)?.subtype ?? message.type);
    };
    const ours = played.written.map(shape);
    // Our writes hold the capture's, in the same order (our client may write more: Codex's terminal
    // clean-up); the capture's probes of what this client never sends (unknown methods, modes) aside.
    const handshake = new Set(['initialize', 'initialized', 'session/new', 'session/load', 'thread/start', 'get_state']);
    const spoken = played.recorded.filter(
      (message) =>
        hostAction(message) !== null ||
        handshake.has(String(message.method ?? (message.request as { subtype?: string } | undefined)?.subtype)),
    );
    let at = 0;
    for (const wanted of spoken.map(shape)) {
      const found = ours.indexOf(wanted, at);
      expect({ wanted, found: found >= 0 }).toEqual({ wanted, found: true });
      at = found + 1;
    }
  });

  it('closes every prompted turn with one result, and says the session started once', () => {
    const prompts = played.written.filter((message) => hostAction(message)?.type === 'prompt').length;
    const results = played.events.filter((event) => event.kind === 'result');
    expect(results.length).toBe(prompts);
    expect(played.events.filter((event) => event.kind === 'run_started')).toHaveLength(1);
  });
});
