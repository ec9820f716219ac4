/*
 * `cli-subprocess-core acp` with no `--provider` (issue #30: one agent for every CLI), driven by the
 * real ACP client: its sessions offer the registry's CLIs found on PATH as the `cli` option (the
 * pinned Claude Code and Codex here, each against its own scripted endpoint), the first by default;
 * switching it makes the next turn another CLI's, a new conversation.
 */
import { join } from 'node:path';
import { SESSION_CLI_IDS } from '../../src/clis';
import { E2E_BIN, startScriptedCli, type ScriptedCli } from '../scripted/setup';
import { runAcpClient } from './acp-client-harness';
import { ACP_COMMAND, expectValidRun, said } from './acp-agent-scenarios';

const ROOT = join(__dirname, '..', '..');

const open: ScriptedCli[] = [];
afterEach(async () => {
  for (const cli of open.splice(0)) await cli.close();
});

describe('cli-subprocess-core acp (no --provider), driven by the real ACP client', () => {
  it('offers the CLIs on PATH as the `_cli` option, Claude Code first; switched to Codex, the next turn is answered by Codex', async () => {
    const claude = await startScriptedCli('claude', [{ text: 'The first answer.' }]);
    open.push(claude);
    const codex = await startScriptedCli('codex', [{ text: 'The second answer.' }]);
    open.push(codex);
    // Both CLIs' settings in one environment: Claude Code's in HOME, Codex's in CODEX_HOME; the pinned CLIs first on PATH.
    const env: Record<string, string> = {
      ...codex.env,
      ...claude.env,
      CODEX_HOME: codex.home,
      TMPDIR: codex.env.TMPDIR,
      PATH: `${E2E_BIN}:${process.env.PATH ?? ''}`,
      CLAUDE_CODE_MAX_RETRIES: '1',
      TS_NODE_PROJECT: join(ROOT, 'tsconfig.json'),
    };
    const command = [...ACP_COMMAND, '--history-dir', join(claude.home, 'acp-history')];
    const run = await runAcpClient({
      scenario: 'two-turns',
      cwd: claude.cwd,
      env,
      command,
      set: [{ beforeTurn: 1, configId: 'cli', value: 'codex' }],
    });
    expectValidRun(run);

    const cliOption = run.sessionNew?.configOptions?.find((option) => option.id === 'cli');
    expect(cliOption).toMatchObject({ category: '_cli', type: 'select', currentValue: 'claude' });
    const offered = cliOption?.type === 'select' ? cliOption.options.map((choice) => ('value' in choice ? choice.value : '')) : [];
    // Every session CLI of the registry is pinned in e2e/node_modules/.bin, in the registry's order.
    expect(offered).toEqual(SESSION_CLI_IDS);

    const [set] = run.setConfigOptions;
    expect(set.error).toBeUndefined();
    const options = set.result?.configOptions ?? [];
    expect(options.find((option) => option.id === 'cli')).toMatchObject({ currentValue: 'codex' });
    expect(options.find((option) => option.id === 'model')).toMatchObject({ currentValue: 'default' });

    expect(run.turns.map((turn) => turn.stopReason)).toEqual(['end_turn', 'end_turn']);
    expect([said(run, 0), said(run, 1)]).toEqual(['The first answer.', 'The second answer.']);
    const bodies = (cli: ScriptedCli) =>
      cli.server.requests.filter((request) => request.method === 'POST').map((request) => JSON.stringify(request.body));
    // Claude Code answered the first turn only; Codex the second, in a new conversation (no first prompt in it).
    expect(bodies(claude).some((body) => body.includes('Give the first answer.'))).toBe(true);
    expect(bodies(claude).some((body) => body.includes('Give the second answer.'))).toBe(false);
    expect(bodies(codex).some((body) => body.includes('Give the second answer.'))).toBe(true);
    expect(bodies(codex).some((body) => body.includes('Give the first answer.'))).toBe(false);
  });
});
