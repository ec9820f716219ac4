/*
 * Runner behaviour across runs with the real CLIs: leaving a `for await` early, an AbortSignal,
 * twenty concurrent runs, and stderr ordering around run_started.
 */
import { collect, kinds, scriptedRuns, SLOW_TEXT, snapshotTree, stillRunning, waitFor } from './harness';
import { checkStream, expectStoppedEnding } from './cli-scenarios';
import { scenario } from '../scripted/script';

const start = scriptedRuns();

describe('startRun with the real CLIs', () => {
  it('leaving the for-await early stops the run; the loop goes on only once every process is gone', async () => {
    // Claude with partial messages: text deltas arrive while the slow stream goes on.
    const { run } = await start('claude', 'Answer slowly.', [SLOW_TEXT], { partial: true });
    let tree: ReturnType<typeof snapshotTree> = [];
    for await (const event of run) {
      if (event.kind === 'assistant_delta') {
        tree = snapshotTree(run.pid as number);
        break;
      }
    }
    expect(tree.length).toBeGreaterThan(0);
    expect(stillRunning(tree)).toEqual([]);
    const outcome = await run.done;
    expect(outcome.status).toBe('aborted');
    // Events the consumer never read still count.
    expect(outcome.counts.error).toBe(1);
    expect(outcome.counts.result).toBe(1);
    expect(outcome.counts.assistant_delta).toBeGreaterThanOrEqual(1);
  });

  it('an AbortSignal stops the run with its reason', async () => {
    const controller = new AbortController();
    const { run, cli } = await start('gemini', 'Answer slowly.', [SLOW_TEXT], { signal: controller.signal });
    const collecting = collect(run);
    await waitFor('the streaming request', () => cli.server.requests.some((request) => request.url.includes('streamGenerateContent')));
    const tree = snapshotTree(run.pid as number);
    controller.abort('the user pressed stop');
    const { events, outcome } = await collecting;
    expect(outcome.status).toBe('aborted');
    expectStoppedEnding(events, 'aborted', 'the run was aborted: the user pressed stop');
    expect(stillRunning(tree)).toEqual([]);
  });

  it('an AbortSignal aborted before the start: the run stops at once', async () => {
    const { run } = await start('codex', 'Say hello.', [{ text: 'hello' }], { signal: AbortSignal.abort('too late') });
    const { events, outcome } = await collect(run);
    expect(outcome.status).toBe('aborted');
    expectStoppedEnding(events, 'aborted', 'the run was aborted: too late');
  });

  it('twenty concurrent runs are independent: each its own answer, session and sequence', async () => {
    const runs = await Promise.all(
      Array.from({ length: 20 }, (_, index) => start('codex', `Say ${index}.`, [{ text: `Answer number ${index}.` }])),
    );
    const results = await Promise.all(runs.map(({ run }) => collect(run)));
    results.forEach(({ events, outcome }, index) => {
      expect(outcome.status).toBe('completed');
      checkStream(events, outcome);
      const answer = events.find((event) => event.kind === 'assistant_message');
      expect(JSON.stringify(answer?.payload)).toContain(`Answer number ${index}.`);
    });
    expect(new Set(results.map(({ outcome }) => outcome.sessionId)).size).toBe(20);
  });

  it.each(['codex', 'gemini'] as const)(
    '%s writes warnings to stderr before run_started: those carry no session id, later events do',
    async (name) => {
      const { run } = await start(name, scenario('plain').prompt, scenario('plain').script);
      const { events, outcome } = await collect(run);
      const started = kinds(events).indexOf('run_started');
      expect(started).toBeGreaterThan(0);
      expect(events.slice(0, started).every((event) => event.kind === 'stderr' && event.provider_session_id === null)).toBe(true);
      checkStream(events, outcome);
    },
  );
});
