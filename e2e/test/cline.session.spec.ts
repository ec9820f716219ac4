import { startSession, type AnyEvent } from '../../src';
import { scenario } from '../scripted/script';
import { startScriptedCli } from '../scripted/setup';
import { clineHubDaemons, listening } from './harness';
import { describeSessionScenarios } from './session-scenarios';

describe('startSession with the real cline CLI', () => {
  // `cline --acp` asks before each tool unless started with `--auto-approve true`.
  describeSessionScenarios('cline', {
    streamingPath: '/chat/completions',
    deniedToldAs: /User rejected the tool call/,
    asksForSleep: true,
  });

  // Issue #28: the first prompt of a session starts the hub daemon unless the registry's switches keep it away.
  it('no hub daemon outlives a session: none in the process table after close, nothing on its port', async () => {
    const cli = await startScriptedCli('cline', scenario('plain').script);
    try {
      const port = 30_000 + (process.pid % 10_000);
      // Without the setup's switches: those of the registry file (`env.set`) are what keeps the daemon away.
      const { CLINE_SESSION_BACKEND_MODE: _mode, CLINE_NO_AUTO_UPDATE: _update, ...scripted } = cli.env;
      const session = startSession({
        provider: 'cline',
        cwd: cli.cwd,
        executable: cli.executable,
        env: { ...scripted, CLINE_HUB_PORT: String(port) },
      });
      const events: AnyEvent[] = [];
      const drained = (async () => {
        for await (const event of session) events.push(event);
      })();
      expect((await session.send(scenario('plain').prompt)).payload.status).toBe('completed');
      expect((await session.close()).status).toBe('completed');
      await drained;
      expect(clineHubDaemons()).toEqual([]);
      expect(await listening(port)).toBe(false);
    } finally {
      await cli.close();
    }
  });
});
