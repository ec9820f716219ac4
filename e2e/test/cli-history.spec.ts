import { listCliSessions, readCliSession, type AnyEvent } from '../../src';
import { collect, scriptedRuns } from './harness';

/*
 * The CLIs' own history, end to end: the real pinned CLI runs a turn with a tool call in a
 * throwaway HOME (its one-shot mode, as a terminal user would), then `listCliSessions` finds the
 * session it stored there and `readCliSession` reads its prompt, tool call and answer back.
 */
describe.each(['claude', 'codex'] as const)('%s: the session it stored itself, listed and read', (provider) => {
  const startScripted = scriptedRuns();

  it('lists the session of a run just made, in its cwd, and reads it back', async () => {
    const { cli, run } = await startScripted(provider, 'Run echo hello-from-tool.', [
      { shell: 'echo hello-from-tool' },
      { text: 'The command printed hello-from-tool.' },
    ]);
    const { events: live, outcome } = await collect(run);
    expect(outcome.status).toBe('completed');
    const sessionId = live.find((event) => event.kind === 'run_started')?.provider_session_id ?? outcome.sessionId;

    const refs = await listCliSessions({ provider, cwd: cli.cwd, env: cli.env });
    expect(refs).toHaveLength(1);
    expect(refs[0]).toMatchObject({ provider, id: sessionId, title: 'Run echo hello-from-tool.' });

    const stored: AnyEvent[] = [];
    for await (const event of readCliSession(refs[0])) stored.push(event);
    expect(stored.find((event) => event.kind === 'run_started')?.payload).toMatchObject({ provider_session_id: sessionId });
    expect(JSON.stringify(stored.find((event) => event.kind === 'tool_use')?.payload)).toContain('echo hello-from-tool');
    expect(JSON.stringify(stored.find((event) => event.kind === 'tool_result')?.payload)).toContain('hello-from-tool');
    const answers = stored.filter((event) => event.kind === 'assistant_message').map((event) => JSON.stringify(event.payload));
    expect(answers.some((answer) => answer.includes('The command printed hello-from-tool.'))).toBe(true);
  });
});
