/*
 * Prints the ACP exchange docs/projections.md shows: `cli-subprocess-core acp --provider claude` in front of
 * the real Claude Code against a scripted endpoint, driven line by line (`>>` client to agent, `<<`
 * agent to client). First agent process: initialize, session/new, a prompt whose tool call the
 * client allows once. Second agent process: initialize, session/load of that session (its history
 * replayed before the answer), a prompt that continues the conversation.
 * Run from the project root: npx ts-node --transpile-only e2e/capture/acp-exchange.ts
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { startScriptedCli, type ScriptedCli } from '../scripted/setup';

const ROOT = join(__dirname, '..', '..');
type Json = Record<string, unknown>;

/** One agent process: send a request and wait for its answer, printing every line both ways. */
function agent(cli: ScriptedCli) {
  const child = spawn(
    process.execPath,
    [
      '-r',
      require.resolve('ts-node/register/transpile-only'),
      join(ROOT, 'src', 'cli', 'main.ts'),
      'acp',
      '--provider',
      'claude',
      '--bin',
      cli.executable,
      '--history-dir',
      join(cli.env.HOME, 'acp-history'),
    ],
    {
      cwd: cli.cwd,
      env: { ...cli.env, CLAUDE_CODE_MAX_RETRIES: '1', TS_NODE_PROJECT: join(ROOT, 'tsconfig.json') },
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  const waiting = new Map<unknown, (message: Json) => void>();
  let buffer = '';
  const send = (message: Json) => {
    const line = JSON.stringify({ jsonrpc: '2.0', ...message });
    process.stdout.write(`>> ${line}\n`);
    child.stdin.write(`${line}\n`);
  };
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    for (let at = buffer.indexOf('\n'); at >= 0; at = buffer.indexOf('\n')) {
      const line = buffer.slice(0, at);
      buffer = buffer.slice(at + 1);
      process.stdout.write(`<< ${line}\n`);
      const message = JSON.parse(line) as Json;
      // The client allows every permission once.
      if (message.method === 'session/request_permission')
        send({ id: message.id, result: { outcome: { outcome: 'selected', optionId: 'allow_once' } } });
      else if (message.method === undefined) waiting.get(message.id)?.(message);
    }
  });
  return {
    request: (id: number, method: string, params: Json) =>
      new Promise<Json>((resolve) => {
        waiting.set(id, resolve);
        send({ id, method, params });
      }),
    end: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.stdin.end();
      }),
  };
}

const INITIALIZE = { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false } };

async function main(): Promise<void> {
  const cli = await startScriptedCli('claude', [
    { shell: 'touch made-by-tool.txt' },
    { text: 'I created the file.' },
    { text: 'I ran touch made-by-tool.txt.' },
  ]);
  try {
    const first = agent(cli);
    await first.request(0, 'initialize', INITIALIZE);
    const created = await first.request(1, 'session/new', { cwd: cli.cwd, mcpServers: [] });
    const sessionId = (created.result as Json).sessionId as string;
    await first.request(2, 'session/prompt', { sessionId, prompt: [{ type: 'text', text: 'Create made-by-tool.txt.' }] });
    await first.end();
    process.stdout.write('-- the agent exits; a new agent process loads the session --\n');
    const second = agent(cli);
    await second.request(0, 'initialize', INITIALIZE);
    await second.request(1, 'session/load', { sessionId, cwd: cli.cwd, mcpServers: [] });
    await second.request(2, 'session/prompt', { sessionId, prompt: [{ type: 'text', text: 'What did you run?' }] });
    await second.end();
  } finally {
    await cli.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exitCode = 1;
});
