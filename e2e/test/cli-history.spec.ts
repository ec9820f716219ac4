import { listCliSessions, readCliSession, type AnyEvent, type CliSessionRef } from '../../src';
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

const PROMPT = 'Run echo hello-from-tool.';
const SCRIPT = [{ shell: 'echo hello-from-tool' }, { text: 'The command printed hello-from-tool.' }];

/** What a stored session of the tool turn must hold, read back (`opencode run` and `kilo run` store the prompt quoted). */
async function expectToolSession(ref: CliSessionRef, sessionId: string | null): Promise<void> {
  const stored: AnyEvent[] = [];
  for await (const event of readCliSession(ref)) stored.push(event);
  expect(stored.find((event) => event.kind === 'run_started')?.payload).toMatchObject({ provider_session_id: sessionId ?? ref.id });
  expect(JSON.stringify(stored.find((event) => event.kind === 'user_message')?.payload)).toContain(PROMPT);
  const call = stored.find((event) => event.kind === 'tool_use');
  expect(JSON.stringify(call?.payload)).toContain('echo hello-from-tool');
  const result = stored.find((event) => event.kind === 'tool_result');
  expect(result?.payload).toMatchObject({ tool_call_id: (call?.payload as { tool_call_id: string }).tool_call_id, is_error: false });
  expect(JSON.stringify(result?.payload)).toContain('hello-from-tool');
  const answers = stored.filter((event) => event.kind === 'assistant_message').map((event) => JSON.stringify(event.payload));
  expect(answers.some((answer) => answer.includes('The command printed hello-from-tool.'))).toBe(true);
  expect(stored.some((event) => event.kind === 'cost_update')).toBe(true);
}

/* Kilo Code, pi and Cline: a run of `startRun` (their one-shot mode), then their store read. */
describe.each(['kilo', 'pi', 'cline'] as const)('%s: the session it stored itself, listed and read', (provider) => {
  const startScripted = scriptedRuns();

  it('lists the session of a run just made, in its cwd, and reads it back', async () => {
    const { cli, run } = await startScripted(provider, PROMPT, SCRIPT);
    const { events: live, outcome } = await collect(run);
    expect(outcome.status).toBe('completed');
    // Cline's run names its conversation, not the session its store keeps: no id to compare.
    const sessionId =
      provider === 'cline' ? null : (live.find((event) => event.kind === 'run_started')?.provider_session_id ?? outcome.sessionId);

    const refs = await listCliSessions({ provider, cwd: cli.cwd, env: cli.env });
    expect(refs).toHaveLength(1);
    expect(refs[0]).toMatchObject({ provider, id: sessionId ?? expect.any(String), cwd: cli.cwd });
    expect(refs[0].title).toContain(PROMPT);
    await expectToolSession(refs[0], sessionId);
  });
});

describe('opencode: the session it stored itself, listed and read', () => {
  it('lists the session of `opencode run` just made, in its cwd, and reads it back from its database', async () => {
    // The registry gives OpenCode no one-shot mode: its `run`, as a terminal user types it.
    const cli = await startScriptedCli('opencode', SCRIPT);
    try {
      const result = await runCli(cli.executable, HISTORY_CLIS.opencode.argv(PROMPT, null), {
        cwd: cli.cwd,
        env: cli.env,
        timeoutMs: 150_000,
      });
      expect(result.exit.code).toBe(0);
      const sessionId = HISTORY_CLIS.opencode.sessionId(result.stdout);
      expect(sessionId).toEqual(expect.any(String));
      const refs = await listCliSessions({ provider: 'opencode', cwd: cli.cwd, env: cli.env });
      expect(refs).toHaveLength(1);
      expect(refs[0]).toMatchObject({ provider: 'opencode', id: sessionId, cwd: cli.cwd, model: expect.stringContaining('/') });
      await expectToolSession(refs[0], sessionId);
    } finally {
      await cli.close();
    }
  });
});
