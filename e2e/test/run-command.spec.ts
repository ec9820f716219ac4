/*
 * The `run` command with the real CLIs: the built cli-subprocess-core runs Claude Code (and Codex,
 * Gemini CLI) against scripted endpoints on 127.0.0.1, passing its environment through.
 */
import { join } from 'node:path';
import { usePrivateBuild } from '../../test/build-copy';
import { spawnNodeCli } from '../../test/cli-child';
import { jsonlEvents } from '../../test/jsonl-events';
import { scenario } from '../scripted/script';
import { ENDLESS_STREAM } from './endless-stream';
import { startScriptedCli, type CliName, type ScriptedCli } from '../scripted/setup';
import { snapshotTree, stillRunning, waitFor } from './harness';
import type { ResponsesTurn } from '../scripted/openai-responses';

// A private build: the package's own build (dist/) belongs to `npm run build`.
const build = usePrivateBuild('e2e-run-command');
const mainJs = (): string => join(build.dir, 'cli/main.js');

/**
 * Every process of the command's tree gone: the CLI is gone when the command exits, and the
 * library's watchdog (a child of the command) exits once it sees the command's pipe close, a moment
 * later on a loaded machine.
 */
async function noneLeft(tree: ReturnType<typeof snapshotTree>): Promise<void> {
  await waitFor('every process of the command to be gone', () => stillRunning(tree).length === 0, 10_000).catch(() => undefined);
  expect(stillRunning(tree)).toEqual([]);
}

const open: ScriptedCli[] = [];
afterEach(async () => {
  for (const cli of open.splice(0)) await cli.close();
});

/** A scripted CLI and the `run` command started on it: `--bin` the pinned CLI, `--cwd` a fresh directory, the CLI's environment. */
async function startRunCommand(name: CliName, script: readonly ResponsesTurn[], args: readonly string[]) {
  const cli = await startScriptedCli(name, script);
  open.push(cli);
  // Claude Code retries API errors for minutes by default.
  const env = { ...cli.env, CLAUDE_CODE_MAX_RETRIES: '1' };
  const command = spawnNodeCli(mainJs(), ['run', '--provider', name, '--bin', cli.executable, '--cwd', cli.cwd, ...args], {
    cwd: cli.cwd,
    env,
  });
  return { cli, command };
}

describe('cli-subprocess-core run with the real CLIs', () => {
  it.each(['claude', 'codex', 'gemini'] as const)('%s: a plain answer → exit 0, JSONL ending in a completed result', async (name) => {
    const plain = scenario('plain');
    const { command } = await startRunCommand(name, plain.script, ['--', plain.prompt]);
    const exit = await command.exited;
    expect(exit.status).toBe(0);
    const written = jsonlEvents(exit.stdout);
    expect(written.some((event) => event.kind === 'run_started')).toBe(true);
    expect(written.filter((event) => event.kind === 'result')).toHaveLength(1);
    expect(written.at(-1)).toMatchObject({ kind: 'result', provider: name, payload: { status: 'completed' } });
    expect(JSON.stringify(written)).toContain('Hello from the scripted model.');
  });

  it('claude: a Bash call allowed with --allowed-tools really runs', async () => {
    const tool = scenario('tool');
    const { command } = await startRunCommand('claude', tool.script, ['--allowed-tools', 'Bash', tool.prompt]);
    const exit = await command.exited;
    expect(exit.status).toBe(0);
    const result = jsonlEvents(exit.stdout).find((event) => event.kind === 'tool_result');
    expect(result).toMatchObject({ payload: { is_error: false } });
    expect(JSON.stringify(result?.payload.content)).toContain('hello-from-tool');
  });

  it('claude: --format pretty → the transcript: the tool call, its output, the answer and the closing line', async () => {
    const tool = scenario('tool');
    const cli = await startScriptedCli('claude', tool.script);
    open.push(cli);
    const args = [
      'run',
      '--provider',
      'claude',
      '--bin',
      cli.executable,
      '--cwd',
      cli.cwd,
      '--format',
      'pretty',
      '--allowed-tools',
      'Bash',
    ];
    const command = spawnNodeCli(mainJs(), [...args, tool.prompt], { cwd: cli.cwd, env: { ...cli.env, NO_COLOR: '1' } });
    const exit = await command.exited;
    expect(exit.status).toBe(0);
    const lines = exit.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^claude · /);
    expect(exit.stdout).toContain('\n● $ echo hello-from-tool\n  ⎿ hello-from-tool\n');
    expect(exit.stdout).toContain('\nThe command printed hello-from-tool.\n');
    expect(lines.slice(-2).join(' ')).toMatch(/^✓ completed · \d+\.\d s · 2 turns · [\d,]+ in \/ [\d,]+ out tokens .*\$\d+\.\d{2,4}$/);
    expect(exit.stdout).not.toMatch(/\u001b|"kind"/);
  });

  it('claude: an API error (HTTP 400) → exit 1, a failed result', async () => {
    const apiError = scenario('api-error');
    const { command, cli } = await startRunCommand('claude', apiError.script, [apiError.prompt]);
    const exit = await command.exited;
    expect(exit.status).toBe(1);
    expect(jsonlEvents(exit.stdout).at(-1)).toMatchObject({ kind: 'result', payload: { status: 'failed' } });
    expect(cli.server.requests.some((request) => request.url.includes('/v1/messages'))).toBe(true);
  });

  it('claude: SIGINT during a slow stream → exit 130, the last line an aborted result, no process left', async () => {
    const { command } = await startRunCommand('claude', [ENDLESS_STREAM], ['--partial', 'Answer slowly.']);
    // Text deltas are arriving: the model call is under way.
    await command.line((line) => line.includes('"kind":"assistant_delta"'));
    const tree = snapshotTree(command.child.pid as number);
    expect(tree.length).toBeGreaterThan(1); // this command and the CLI it started, at least
    command.child.kill('SIGINT');
    const exit = await command.exited;
    expect([exit.status, exit.stderr]).toEqual([130, '']);
    const written = jsonlEvents(exit.stdout);
    expect(written.at(-2)).toMatchObject({ kind: 'error', payload: { code: 'aborted', severity: 'fatal' } });
    expect(written.at(-1)).toMatchObject({ kind: 'result', payload: { status: 'aborted' } });
    expect(written.filter((event) => event.kind === 'result')).toHaveLength(1);
    await noneLeft(tree);
  });

  it('claude: a reader that leaves early (EPIPE) during a slow stream → exit 141, no crash, no process left', async () => {
    const { command } = await startRunCommand('claude', [ENDLESS_STREAM], ['--partial', 'Answer slowly.']);
    await command.line((line) => line.includes('"kind":"assistant_delta"'));
    const tree = snapshotTree(command.child.pid as number);
    command.child.stdout?.destroy(); // as `… | head -1` does once it has its line
    const exit = await command.exited;
    expect([exit.status, exit.stderr]).toEqual([141, '']);
    await noneLeft(tree);
  });

  it('claude: --timeout during a slow stream → exit 1, a timed_out result', async () => {
    const { command } = await startRunCommand('claude', [ENDLESS_STREAM], ['--timeout', '3', 'Answer slowly.']);
    const exit = await command.exited;
    expect(exit.status).toBe(1);
    expect(jsonlEvents(exit.stdout).at(-1)).toMatchObject({ kind: 'result', payload: { status: 'timed_out' } });
  });
});
