/*
 * Captures the sessions the real pinned CLIs store on disk (their own history,
 * which `listCliSessions`/`readCliSession` read) against the scripted endpoints.
 * Usage (from the project root): npx ts-node --transpile-only e2e/capture/history.ts [claude|codex…]
 * Each scenario runs the CLI's one-shot mode in a fresh HOME and cwd (a second run resumes the
 * first session) and copies the store it wrote, with its layout, to
 * test/fixtures/history/<cli>/<scenario>/ (the usage comparison's to test/fixtures/usage-vs-ccusage/) (Claude: `projects/…`, the CLAUDE_CONFIG_DIR layout;
 * Codex: `sessions/YYYY/MM/DD/rollout-*.jsonl`, the CODEX_HOME layout; Gemini CLI:
 * `.gemini/tmp/<project>/{.project_root,chats/session-*.jsonl}`, the GEMINI_CLI_HOME layout (a
 * HOME); Qwen Code: `projects/<cwd slug>/chats/<id>.jsonl`, the QWEN_HOME layout; Copilot CLI:
 * `session-state/<id>/{events.jsonl,workspace.yaml}`, the COPILOT_HOME layout; OpenCode and Kilo:
 * `opencode/opencode.db` and its `-wal` log as the CLI left them, the XDG_DATA_HOME layout; pi:
 * `sessions/--<cwd>--/<time>_<id>.jsonl`, the PI_CODING_AGENT_DIR layout; Cline:
 * `sessions/<id>/<id>.json` and `.messages.json`, the CLINE_DATA_DIR layout), only the session
 * files and what names them (no settings, locks, logs or caches). Tests point the override
 * variable at that folder.
 */
import { cpSync, existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { ResponsesTurn } from '../scripted/openai-responses';
import { startSession } from '../../src';
import { cliDefinition } from '../../src/clis';
import { startScriptedCli, type CliName } from '../scripted/setup';
import { HISTORY_CLIS } from './history-clis';
import { captureAll, FIXTURES, runCli } from './run-cli';

interface Run {
  prompt: string;
  script: readonly ResponsesTurn[];
}

interface Scenario {
  name: string;
  cli: Extract<CliName, keyof typeof HISTORY_CLIS>;
  /** The second and later runs resume the first one's session. */
  runs: Run[];
  /** The runs are turns of one interactive session (`startSession`), for a CLI whose one-shot mode cannot resume. */
  session?: boolean;
  /** Arguments before each run's own (a model the CLI's default is not). */
  args?: readonly string[];
  /** The folder under test/fixtures it goes to (default `history`, which the history and usage specs read whole). */
  folder?: string;
}

const TOOL: Run = {
  prompt: 'Run echo hello-from-tool.',
  script: [{ shell: 'echo hello-from-tool' }, { text: 'The command printed hello-from-tool.' }],
};
const TWO_TURNS: Run[] = [
  { prompt: 'Say one.', script: [{ text: 'one' }] },
  { prompt: 'Say two.', script: [{ text: 'two' }] },
];

/** Reasoning, then a second turn: reasoning tokens in Codex's usage (e2e/test/usage-ccusage.spec.ts). */
const THINKING: Run[] = [
  { prompt: 'What is six times seven?', script: [{ thinking: 'Six times seven is forty-two.', text: 'The answer is 42.' }] },
  { prompt: 'Say two.', script: [{ text: 'two' }] },
];
/** Where the usage comparison's own captures go (test/fixtures/usage-vs-ccusage/<cli>/<scenario>/). */
const USAGE_VS_CCUSAGE = 'usage-vs-ccusage';
/** A tool call, then a second turn in the same session: the usage comparison's Claude Code sessions. */
const TOOL_THEN_TURN: Run[] = [TOOL, TWO_TURNS[1]];

const SCENARIOS: Scenario[] = [
  { name: 'claude-tool', cli: 'claude', runs: [TOOL] },
  { name: 'claude-two-turns', cli: 'claude', runs: TWO_TURNS },
  // Priced by ccusage too (its table lacks Claude Code's default, claude-opus-5-5): e2e/test/usage-ccusage.spec.ts.
  // The scripted endpoint now breaks cache writes down: those sessions' stores go to a folder of their own.
  { name: 'claude-sonnet', cli: 'claude', runs: TOOL_THEN_TURN, args: ['--model', 'claude-sonnet-4-5'], folder: USAGE_VS_CCUSAGE },
  { name: 'claude-opus', cli: 'claude', runs: TOOL_THEN_TURN, folder: USAGE_VS_CCUSAGE },
  { name: 'codex-tool', cli: 'codex', runs: [TOOL] },
  { name: 'codex-two-turns', cli: 'codex', runs: TWO_TURNS },
  { name: 'codex-thinking', cli: 'codex', runs: THINKING, folder: USAGE_VS_CCUSAGE },
  { name: 'gemini-tool', cli: 'gemini', runs: [TOOL] },
  { name: 'gemini-two-turns', cli: 'gemini', runs: TWO_TURNS },
  { name: 'qwen-tool', cli: 'qwen', runs: [TOOL] },
  { name: 'qwen-two-turns', cli: 'qwen', runs: TWO_TURNS },
  { name: 'copilot-tool', cli: 'copilot', runs: [TOOL] },
  { name: 'copilot-two-turns', cli: 'copilot', runs: TWO_TURNS },
  { name: 'opencode-tool', cli: 'opencode', runs: [TOOL] },
  { name: 'opencode-two-turns', cli: 'opencode', runs: TWO_TURNS },
  { name: 'kilo-tool', cli: 'kilo', runs: [TOOL] },
  { name: 'kilo-two-turns', cli: 'kilo', runs: TWO_TURNS },
  { name: 'pi-tool', cli: 'pi', runs: [TOOL] },
  { name: 'pi-two-turns', cli: 'pi', runs: TWO_TURNS },
  { name: 'cline-tool', cli: 'cline', runs: [TOOL] },
  // `cline --json` cannot resume: two prompts of one `cline --acp` session instead.
  { name: 'cline-two-turns', cli: 'cline', runs: TWO_TURNS, session: true },
];

async function capture(scenario: Scenario): Promise<void> {
  const cli = HISTORY_CLIS[scenario.cli];
  // One endpoint plays every run's answers in order.
  const scripted = await startScriptedCli(
    scenario.cli,
    scenario.runs.flatMap((run) => run.script),
  );
  try {
    let id: string | null = null;
    if (scenario.session) {
      const session = startSession({ provider: scenario.cli, cwd: scripted.cwd, executable: scripted.executable, env: scripted.env });
      const drained = (async () => {
        for await (const event of session) if (event.kind === 'run_started') id ??= event.provider_session_id;
      })();
      for (const run of scenario.runs) process.stdout.write(`${scenario.name}: ${(await session.send(run.prompt)).payload.status}\n`);
      await session.close();
      await drained;
    }
    for (const run of scenario.session ? [] : scenario.runs) {
      const result = await runCli(scripted.executable, [...(scenario.args ?? []), ...cli.argv(run.prompt, id)], {
        cwd: scripted.cwd,
        // The registry's switches, as `startRun` sets them (without KILO_NO_DAEMON `kilo run` may wait on its daemon).
        env: { ...cliDefinition(scenario.cli).env.set, ...scripted.env },
        timeoutMs: 120_000,
      });
      id ??= cli.sessionId(result.stdout);
      process.stdout.write(`${scenario.name}: exit ${JSON.stringify(result.exit)} session ${String(id)}\n`);
      if (result.exit.code !== 0) process.stdout.write(result.stderr.slice(0, 2000));
    }
    const from = join(cli.store(scripted.home), cli.keep);
    const to = join(FIXTURES, scenario.folder ?? 'history', scenario.cli, scenario.name.replace(`${scenario.cli}-`, ''));
    rmSync(to, { recursive: true, force: true });
    if (!existsSync(from)) throw new Error(`${scenario.name}: no ${from}`);
    cpSync(from, join(to, cli.keep), { recursive: true, filter: cli.keepFile });
  } finally {
    await scripted.close();
  }
}

captureAll(SCENARIOS, capture);
