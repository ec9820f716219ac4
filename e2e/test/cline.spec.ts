import { startRun } from '../../src';
import { listProcesses } from '../../src/runner/process-table';
import { scenario } from '../scripted/script';
import { startScriptedCli } from '../scripted/setup';
import { describeCliScenarios } from './cli-scenarios';
import { clineHubDaemons, collect, commandLine, listening } from './harness';

describe('startRun with the real cline CLI', () => {
  // Cline prices no model it does not know; `--id` (resume) opens its TUI, which `--json` refuses.
  describeCliScenarios('cline', {
    packageName: 'cline',
    streamingPath: '/chat/completions',
    failingCommandIsError: true,
    printsThinking: true,
    resumeCarriesUsage: false,
    reportsCost: false,
    model: 'fake-model',
    readsPromptOnStdin: false,
  });

  // Issue #28: at its first prompt Cline starts a hub daemon (port 25463, CLINE_HUB_PORT) that outlives it.
  it('no hub daemon outlives a run: none in the process table after `done`, nothing on its port', async () => {
    const cli = await startScriptedCli('cline', scenario('plain').script);
    try {
      const port = 20_000 + (process.pid % 10_000);
      // Without the setup's switches: those of the registry file (`env.set`) are what keeps the daemon away.
      const { CLINE_SESSION_BACKEND_MODE: _mode, CLINE_NO_AUTO_UPDATE: _update, ...scripted } = cli.env;
      const env = { ...scripted, CLINE_HUB_PORT: String(port) };
      const run = startRun({ provider: 'cline', prompt: scenario('plain').prompt, cwd: cli.cwd, executable: cli.executable, env });
      const { outcome } = await collect(run);
      expect(outcome.status).toBe('completed');
      expect(clineHubDaemons()).toEqual([]);
      expect(await listening(port)).toBe(false);
      expect(listProcesses().filter((stat) => commandLine(stat.pid).includes(cli.cwd))).toEqual([]);
    } finally {
      await cli.close();
    }
  });
});
