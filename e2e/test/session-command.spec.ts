/*
 * The `session` command with the real CLIs: the built cli-subprocess-core holds a session with
 * Claude Code and Codex against scripted endpoints, commands on its stdin, events on its stdout.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { usePrivateBuild } from '../../test/build-copy';
import { spawnNodeCli } from '../../test/cli-child';
import { jsonlEvents } from '../../test/jsonl-events';
import { startScriptedCli, type ScriptedCli } from '../scripted/setup';

// A private build: the package's own build (dist/) belongs to `npm run build`.
const build = usePrivateBuild('e2e-session-command');
const mainJs = (): string => join(build.dir, 'cli/main.js');

const open: ScriptedCli[] = [];
afterEach(async () => {
  for (const cli of open.splice(0)) await cli.close();
});

describe('cli-subprocess-core session with the real CLIs', () => {
  it.each(['claude', 'codex'] as const)(
    '%s: a prompt, its approval denied on stdin (no file), a second turn; end of input → exit 0',
    async (name) => {
      const cli = await startScriptedCli(name, [
        { shell: 'touch made-by-tool.txt' },
        { text: 'I was not allowed to create the file.' },
        { text: 'The second answer.' },
      ]);
      open.push(cli);
      const command = spawnNodeCli(mainJs(), ['session', '--provider', name, '--bin', cli.executable, '--cwd', cli.cwd], {
        cwd: cli.cwd,
        env: { ...cli.env, CLAUDE_CODE_MAX_RETRIES: '1' },
        stdin: 'pipe',
      });
      const send = (command_: unknown) => command.child.stdin?.write(`${JSON.stringify(command_)}\n`);
      send({ type: 'prompt', text: 'Create made-by-tool.txt.' });
      const asked = JSON.parse(await command.line((line) => line.includes('"kind":"approval_requested"'))) as {
        payload: { approval_id: string };
      };
      send({ type: 'approve', approval_id: asked.payload.approval_id, decision: 'deny', reason: 'Not on this machine.' });
      await command.line((line) => line.includes('"kind":"result"'));
      send({ type: 'prompt', text: 'Say the second thing.' });
      command.child.stdin?.end();
      const exit = await command.exited;
      expect({ status: exit.status, stderr: exit.stderr.split('\n').filter((line) => line.startsWith('cli-subprocess-core')) }).toEqual({
        status: 0,
        stderr: [],
      });
      const events = jsonlEvents(exit.stdout);
      expect(existsSync(join(cli.cwd, 'made-by-tool.txt'))).toBe(false);
      expect(events.find((event) => event.kind === 'approval_resolved')?.payload).toMatchObject({
        decision: 'deny',
        reason: 'Not on this machine.',
      });
      expect(events.filter((event) => event.kind === 'result').map((event) => event.kind === 'result' && event.payload.status)).toEqual([
        'completed',
        'completed',
      ]);
      expect(events.filter((event) => event.kind === 'result').at(-1)).toMatchObject({ payload: { output: 'The second answer.' } });
    },
  );
});
