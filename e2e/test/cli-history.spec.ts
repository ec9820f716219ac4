import { listCliSessions, readCliSession, type AnyEvent } from '../../src';
import { HISTORY_CLIS } from '../capture/history-clis';
import { runCli } from '../capture/run-cli';
import { startScriptedCli, type ScriptedCli } from '../scripted/setup';
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

/*
 * The same for the CLIs `startRun` does not run (Qwen Code, Copilot CLI) and Gemini CLI: their own
 * one-shot mode, as a terminal user runs it (e2e/capture/history-clis.ts), then a resume of it.
 */
describe.each(['gemini', 'qwen', 'copilot'] as const)('%s: the session it stored itself, listed and read', (provider) => {
  let scripted: ScriptedCli | null = null;
  afterEach(async () => {
    await scripted?.close();
    scripted = null;
  });

  it('lists the session of a run and its resume, in its cwd, and reads both turns back', async () => {
    scripted = await startScriptedCli(provider, [
      { shell: 'echo hello-from-tool' },
      { text: 'The command printed hello-from-tool.' },
      { text: 'two' },
    ]);
    const cli = HISTORY_CLIS[provider];
    const first = await runCli(scripted.executable, cli.argv('Run echo hello-from-tool.', null), {
      cwd: scripted.cwd,
      env: scripted.env,
      timeoutMs: 120_000,
    });
    expect(first.exit.code).toBe(0);
    const sessionId = cli.sessionId(first.stdout);
    expect(sessionId).toEqual(expect.any(String));
    const second = await runCli(scripted.executable, cli.argv('Say two.', sessionId), {
      cwd: scripted.cwd,
      env: scripted.env,
      timeoutMs: 120_000,
    });
    expect(second.exit.code).toBe(0);

    const refs = await listCliSessions({ provider, cwd: scripted.cwd, env: scripted.env });
    expect(refs).toHaveLength(1);
    expect(refs[0]).toMatchObject({ provider, id: sessionId, cwd: scripted.cwd, title: 'Run echo hello-from-tool.' });

    const stored: AnyEvent[] = [];
    for await (const event of readCliSession(refs[0])) stored.push(event);
    expect(stored.find((event) => event.kind === 'run_started')?.payload).toMatchObject({
      provider_session_id: sessionId,
      cwd: scripted.cwd,
    });
    const call = stored.find((event) => event.kind === 'tool_use');
    expect(JSON.stringify(call?.payload)).toContain('echo hello-from-tool');
    const result = stored.find((event) => event.kind === 'tool_result');
    expect(result?.payload).toMatchObject({ tool_call_id: (call?.payload as { tool_call_id: string }).tool_call_id, is_error: false });
    expect(JSON.stringify(result?.payload)).toContain('hello-from-tool');
    const said = (kind: string) =>
      stored
        .filter((event) => event.kind === kind && (event.payload as { metadata?: { context?: boolean } }).metadata?.context !== true)
        .map((event) => ((event.payload as { content: { text?: string }[] }).content ?? []).map((block) => block.text ?? '').join(''));
    expect(said('user_message')).toEqual(['Run echo hello-from-tool.', 'Say two.']);
    expect(said('assistant_message')).toEqual(['The command printed hello-from-tool.', 'two']);
    expect(stored.some((event) => event.kind === 'cost_update')).toBe(true);
  });
});
