/*
 * The scenarios every pinned CLI runs through `startRun` (issue #13): each CLI's spec file calls
 * `describeCliScenarios` so that the three CLIs run in parallel jest workers.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ExecutableNotFoundError, startRun, type AnyEvent, type RunOutcome, type RunProvider } from '../../src';
import { isRunning, type ProcessRef } from '../../src/runner/process-table';
import { CLIS } from '../../src/clis';
import { scenario } from '../scripted/script';
import { cliPath, pointCliAt, startEndpoint } from '../scripted/setup';
import { collect, commandLine, first, kinds, scriptedRuns, SLOW_TEXT, snapshotTree, stillRunning, waitFor } from './harness';

/** What differs between the CLIs in these scenarios. */
export interface CliExpectations {
  /** The npm package named in the "not found" message. */
  readonly packageName: string;
  /** The URL part of the endpoint request that streams the model's answer. */
  readonly streamingPath: string;
  /** Whether the CLI flags a shell command that exited non-zero as a failed tool call (Gemini reports it as a success with the output). */
  readonly failingCommandIsError: boolean;
  /** Whether `--output-format stream-json` prints the model's thoughts (Gemini CLI 0.61 drops the thought parts it receives). */
  readonly printsThinking: boolean;
  /** A model name the CLI accepts against its scripted endpoint (Codex: `gpt-5.5`, else a model-metadata error item). */
  readonly model: string;
  /** Whether the CLI reports a price (only Claude Code does). */
  readonly reportsCost: boolean;
  /** Whether a resumed session's usage totals include the earlier runs (Claude Code and Codex carry them over; Gemini CLI counts each process afresh). */
  readonly resumeCarriesUsage: boolean;
  /** Whether the CLI exits 0 after a failed model call (pi 0.73.1 does: the failure is only in its output). */
  readonly exitsZeroOnApiError?: boolean;
  /** A stderr line of the CLI given an unknown flag; default: one naming the flag (Kilo Code 7.7.7 prints only its usage). */
  readonly unknownFlagStderr?: RegExp;
  /** Whether the CLI reads a prompt too long for argv on stdin (default true; Cline 3.0.65 takes it only as an argument). */
  readonly readsPromptOnStdin?: boolean;
}

export function describeCliScenarios(name: RunProvider, expected: CliExpectations): void {
  const start = scriptedRuns();

  it('a plain answer with a model: stderr before run_started has no session id, everything after has it, one sequence', async () => {
    const { run, cli } = await start(name, scenario('plain').prompt, scenario('plain').script, { model: expected.model });
    const { events, outcome } = await collect(run);
    expect(JSON.stringify(cli.server.requests.map((request) => [request.url, request.body]))).toContain(expected.model);
    expect(outcome).toMatchObject({ status: 'completed', exitCode: 0, signal: null });
    checkStream(events, outcome);
    expect(first(events, 'assistant_message')?.payload.content).toEqual([
      expect.objectContaining({ text: 'Hello from the scripted model.' }),
    ]);
    expect(events[events.length - 1]).toMatchObject({ kind: 'result', payload: { status: 'completed' } });
    expect(outcome.counts.result).toBe(1);
    expect(outcome.cost?.output_tokens).toBeGreaterThan(0);
    // The usage convention: input counts the cache; a CLI that reports no price has cost_usd null, not $0.
    expect(outcome.cost?.input_tokens).toBeGreaterThanOrEqual(
      (outcome.cost?.cache_read_input_tokens ?? 0) + (outcome.cost?.cache_write_input_tokens ?? 0),
    );
    if (expected.reportsCost) expect(outcome.cost?.cost_usd).toBeGreaterThan(0);
    else expect(outcome.cost?.cost_usd).toBeNull();
  });

  // #18 "Long prompts throw": a 140,000-character prompt made spawn fail with E2BIG.
  const longPrompt = `Say hello. ${'long prompt '.repeat(11_667)}END-OF-LONG-PROMPT`;
  if (expected.readsPromptOnStdin === false) {
    it('a 140,000-character prompt: refused with a TypeError before anything starts (the CLI reads no prompt on stdin)', async () => {
      const refusal = `${name} takes its prompt only as an argument: a prompt over 65536 bytes (UTF-8) cannot be passed to it`;
      await expect(start(name, longPrompt, scenario('plain').script)).rejects.toThrow(new TypeError(refusal));
    });
  } else
    it('a 140,000-character prompt goes on stdin: the run completes and the model receives all of it', async () => {
      const prompt = longPrompt;
      const { run, cli } = await start(name, prompt, scenario('plain').script);
      const { events, outcome } = await collect(run);
      expect(outcome.status).toBe('completed');
      checkStream(events, outcome);
      expect(run.argv.join(' ')).not.toContain('END-OF-LONG-PROMPT');
      const bodies = JSON.stringify(cli.server.requests.map((request) => request.body));
      expect(bodies).toContain('END-OF-LONG-PROMPT');
      expect(bodies).toContain('long prompt '.repeat(1000));
    });

  // #18 "Ending at the result": leaving the loop at the result reported aborted and SIGTERMed the CLI.
  it('leaving the for await at the result: the run is completed and nothing of it is left running', async () => {
    const { run } = await start(name, scenario('plain').prompt, scenario('plain').script);
    const seen = new Map<number, ProcessRef>();
    const watch = setInterval(() => {
      for (const ref of snapshotTree(run.pid as number)) seen.set(ref.pid, ref);
    }, 50);
    try {
      for await (const event of run) if (event.kind === 'result') break;
      expect((await run.done).status).toBe('completed');
    } finally {
      clearInterval(watch);
    }
    expect(stillRunning([...seen.values()])).toEqual([]);
  });

  it('a tool call the CLI really runs: the file it wrote exists', async () => {
    const script = [{ shell: 'echo made-by-the-tool > tool-output.txt' }, { text: 'I wrote tool-output.txt.' }];
    const { run, cli } = await start(name, 'Write tool-output.txt.', script);
    const { events, outcome } = await collect(run);
    expect(outcome.status).toBe('completed');
    checkStream(events, outcome);
    const file = join(cli.cwd, 'tool-output.txt');
    expect(existsSync(file) ? readFileSync(file, 'utf8') : 'no file').toBe('made-by-the-tool\n');
    const use = first(events, 'tool_use');
    const result = first(events, 'tool_result');
    expect(use?.payload.tool_call_id).toBeTruthy();
    expect(result?.payload.tool_call_id).toBe(use?.payload.tool_call_id);
    expect(result?.payload.is_error).toBe(false);
  });

  it('a failing command: the tool result says so and the run still completes', async () => {
    const { run } = await start(name, scenario('failing-command').prompt, scenario('failing-command').script);
    const { events, outcome } = await collect(run);
    expect(outcome.status).toBe('completed');
    checkStream(events, outcome);
    const result = first(events, 'tool_result');
    expect(JSON.stringify(result?.payload.content)).toContain('No such file or directory');
    expect(result?.payload.is_error).toBe(expected.failingCommandIsError);
  });

  it(`thinking: ${expected.printsThinking ? 'a thinking event before the answer' : 'the CLI prints no thoughts, the answer comes'}`, async () => {
    const { run } = await start(name, scenario('thinking').prompt, scenario('thinking').script);
    const { events, outcome } = await collect(run);
    expect(outcome.status).toBe('completed');
    checkStream(events, outcome);
    const thinking = events
      .filter((event) => event.kind === 'thinking')
      .map((event) => (event.kind === 'thinking' ? event.payload.content : ''))
      .join('');
    expect(JSON.stringify(first(events, 'assistant_message')?.payload.content)).toContain('The answer is 42.');
    if (!expected.printsThinking) {
      expect(thinking).toBe('');
      return;
    }
    expect(thinking).toContain('Six times seven is forty-two.');
    expect(kinds(events).indexOf('thinking')).toBeLessThan(kinds(events).indexOf('assistant_message'));
  });

  it('an API error (HTTP 400): the run fails with an error event', async () => {
    const { run } = await start(name, scenario('api-error').prompt, scenario('api-error').script);
    const { events, outcome } = await collect(run);
    expect(outcome.status).toBe('failed');
    if (expected.exitsZeroOnApiError) expect(outcome.exitCode).toBe(0);
    else expect(outcome.exitCode).not.toBe(0);
    checkStream(events, outcome);
    expect(
      events.some((event) => event.kind === 'error' || (event.kind === 'stderr' && /400|invalid request/i.test(event.payload.content))),
    ).toBe(true);
    expect(events[events.length - 1]).toMatchObject({ kind: 'result', payload: { status: 'failed' } });
  });

  it('a slow stream aborted: error + result "aborted", and no process of the run is left', async () => {
    const { run, cli } = await start(name, 'Answer slowly.', [SLOW_TEXT]);
    const collecting = collect(run);
    await waitFor('the streaming request', () => cli.server.requests.some((request) => request.url.includes(expected.streamingPath)));
    const tree = snapshotTree(run.pid as number);
    expect(tree.length).toBeGreaterThan(0);
    run.abort('the test stopped it');
    const { events, outcome } = await collecting;
    expect(outcome.status).toBe('aborted');
    expectStoppedEnding(events, 'aborted', 'the run was aborted: the test stopped it');
    expect(stillRunning(tree)).toEqual([]);
  });

  it('a long-running tool command (sleep 300) when the run is stopped: the command is gone too', async () => {
    // Not a standalone `sleep 300`: Claude Code refuses that ("Blocked: standalone sleep 300").
    const { run } = await start(name, 'Sleep for five minutes.', [{ shell: 'echo sleeping; sleep 300' }, { text: 'Done sleeping.' }]);
    const collecting = collect(run);
    const sleeper = await waitFor('the sleep command', () =>
      snapshotTree(run.pid as number).find((ref) => /^(\S*\/)?sleep 300$/.test(commandLine(ref.pid))),
    );
    const tree = snapshotTree(run.pid as number);
    run.abort();
    const { events, outcome } = await collecting;
    expect(outcome.status).toBe('aborted');
    expectStoppedEnding(events, 'aborted', 'the run was aborted');
    expect(isRunning(sleeper)).toBe(false);
    expect(stillRunning(tree)).toEqual([]);
  });

  it('a timeout: error + result "timed_out", and nothing left running', async () => {
    const { run } = await start(name, 'Answer slowly.', [SLOW_TEXT], { timeoutMs: 2500 });
    const seen = new Map<number, ProcessRef>();
    const watch = setInterval(() => {
      for (const ref of snapshotTree(run.pid as number)) seen.set(ref.pid, ref);
    }, 50);
    const { events, outcome } = await collect(run).finally(() => clearInterval(watch));
    expect(outcome.status).toBe('timed_out');
    expectStoppedEnding(events, 'timeout', 'the run timed out after 2500 ms');
    expect(seen.size).toBeGreaterThan(0);
    expect(stillRunning([...seen.values()])).toEqual([]);
  });

  if (CLIS[name].run.resume === null) {
    it('resume: refused (a TypeError), as its registry file says why', () => {
      const resumed = () => startRun({ provider: name, prompt: 'Say hello.', resume: 'any-session', executable: cliPath(name) });
      expect(resumed).toThrow(new TypeError(`${name} runs cannot be resumed`));
    });
  } else
    it('resume continues the session (and the presets plan and accept-edits are accepted)', async () => {
      const home = mkdtempSync(join(tmpdir(), `${name}-resume-home-`));
      const cwd = mkdtempSync(join(tmpdir(), `${name}-resume-cwd-`));
      try {
        let sessionId: string | null = null;
        let firstCost: RunOutcome['cost'] = null;
        for (const [word, permission] of [
          ['first', 'plan'],
          ['second', 'accept-edits'],
        ] as const) {
          const server = await startEndpoint(name, [{ text: `The ${word} answer.` }]);
          try {
            const env = { ...pointCliAt(name, home, server.url), CLAUDE_CODE_MAX_RETRIES: '1' };
            const run = startRun({
              provider: name,
              prompt: `Say the ${word} word.`,
              cwd,
              env,
              executable: cliPath(name),
              permission,
              resume: sessionId ?? undefined,
              timeoutMs: 90_000,
            });
            const { events, outcome } = await collect(run);
            expect(outcome.status).toBe('completed');
            checkStream(events, outcome);
            if (sessionId) {
              expect(outcome.sessionId).toBe(sessionId);
              // The resumed conversation reaches the model with the first turn in it.
              expect(JSON.stringify(server.requests.map((request) => request.body))).toContain('The first answer.');
              // #18: a CLI's totals of a resumed session may include the first run; the run's own cost does not
              // (each run here makes the same model calls to a fresh endpoint, which reports fixed usage).
              const reported = events.filter((event) => event.kind === 'cost_update').at(-1);
              if (expected.resumeCarriesUsage) {
                expect(outcome.cost?.input_tokens).toBe(firstCost?.input_tokens);
                expect(outcome.cost?.output_tokens).toBe(firstCost?.output_tokens);
                expect(reported?.kind === 'cost_update' && reported.payload.input_tokens).toBe((firstCost?.input_tokens ?? 0) * 2);
              } else {
                expect(outcome.cost?.input_tokens).toBe(reported?.kind === 'cost_update' && reported.payload.input_tokens);
              }
            }
            sessionId = outcome.sessionId;
            firstCost ??= outcome.cost;
          } finally {
            await server.close();
          }
        }
      } finally {
        rmSync(home, { recursive: true, force: true });
        rmSync(cwd, { recursive: true, force: true });
      }
    });

  it('a missing executable: one error naming it and how to install it', () => {
    const missing = () => startRun({ provider: name, prompt: 'hi', env: { PATH: '/nonexistent-bin' } });
    expect(missing).toThrow(ExecutableNotFoundError);
    expect(missing).toThrow(`${name} not found on PATH: install ${expected.packageName} or pass executable`);
    try {
      startRun({ provider: name, prompt: 'hi', executable: `/nonexistent-dir/${name}` });
    } catch (error) {
      expect(error).toBeInstanceOf(ExecutableNotFoundError);
      expect(error).toMatchObject({ executable: `/nonexistent-dir/${name}`, provider: name, code: 'ENOENT' });
      return;
    }
    throw new Error('startRun did not throw');
  });

  it('exits non-zero with nothing on stdout (an unknown flag): failed, its stderr kept, no session', async () => {
    const { run } = await start(name, 'hi', [], { args: ['--no-such-flag-for-e2e'] });
    const { events, outcome } = await collect(run);
    expect(outcome).toMatchObject({ status: 'failed', sessionId: null, signal: null });
    expect(outcome.exitCode).not.toBe(0);
    const told = expected.unknownFlagStderr ?? /no-such-flag-for-e2e|such-flag-for-e2e/;
    expect(events.some((event) => event.kind === 'stderr' && told.test(event.payload.content))).toBe(true);
    expect(kinds(events).filter((kind) => kind !== 'stderr')).toEqual(['error', 'result']);
    expect(events[events.length - 2]).toMatchObject({ kind: 'error', payload: { code: 'no_result', severity: 'fatal' } });
    expect(events[events.length - 1]).toMatchObject({ kind: 'result', payload: { status: 'failed' } });
  });
}

/**
 * One sequence per run (0, 1, 2… in order); before `run_started` only stderr events without a
 * session id; from `run_started` on, the run's session id on every event.
 */
export function checkStream(events: readonly AnyEvent[], outcome: RunOutcome): void {
  expect(events.map((event) => event.sequence)).toEqual(events.map((_, index) => index));
  // Timestamps never run backwards, stdout and stderr events alike (#18).
  const times = events.map((event) => event.timestamp.getTime());
  expect(times).toEqual([...times].sort((a, b) => a - b));
  const started = kinds(events).indexOf('run_started');
  expect(started).toBeGreaterThanOrEqual(0);
  expect(outcome.sessionId).toBeTruthy();
  for (const event of events.slice(0, started))
    expect({ kind: event.kind, session: event.provider_session_id }).toEqual({ kind: 'stderr', session: null });
  for (const event of events.slice(started)) expect(event.provider_session_id).toBe(outcome.sessionId);
}

/** A stopped run ends with a fatal error carrying `code`, then (unless the CLI printed its own) a result with the stop's status. */
export function expectStoppedEnding(events: readonly AnyEvent[], code: 'aborted' | 'timeout', message: string): void {
  const last = events[events.length - 1];
  const error = events[events.length - 2];
  expect(error).toMatchObject({ kind: 'error', payload: { code, severity: 'fatal', message } });
  expect(last).toMatchObject({ kind: 'result', payload: { status: code === 'timeout' ? 'timed_out' : 'aborted', stop_reason: code } });
  expect(events.filter((event) => event.kind === 'result')).toHaveLength(1);
}
