import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startRun, type AnyEvent } from '../src';
import { startScriptedCli } from '../e2e/scripted/setup';

/*
 * Runs the real Claude Code (pinned in e2e/, `npm install --prefix e2e`) against a scripted model
 * endpoint on 127.0.0.1 that asks it to run one shell command and then answers.
 * Run it with: npm run example:run
 */
async function main(): Promise<void> {
  const cli = await startScriptedCli('claude', [{ shell: 'echo hello > hello.txt' }, { text: 'I wrote hello.txt.' }]);
  try {
    const run = startRun({
      provider: 'claude',
      prompt: 'Write hello to hello.txt.',
      cwd: cli.cwd,
      executable: cli.executable, // default: `claude` on PATH
      env: cli.env, // the scripted endpoint's ANTHROPIC_BASE_URL, a throwaway HOME
      allowedTools: ['Bash'],
      timeoutMs: 60_000,
    });
    console.log('pid', typeof run.pid, 'argv', run.argv.slice(1).join(' '));
    for await (const event of run) console.log(event.sequence, event.kind, describe(event));
    const { status, exitCode, signal, sessionId, counts, cost } = await run.done;
    console.log({ status, exitCode, signal, sessionId, cost });
    console.log(Object.entries(counts).filter(([, n]) => n > 0).map(([kind, n]) => `${kind}: ${n}`).join(', '));
    console.log('hello.txt:', JSON.stringify(readFileSync(join(cli.cwd, 'hello.txt'), 'utf8')));
  } finally {
    await cli.close();
  }
}

/** One line per event; `kind` narrows the payload. */
function describe(event: AnyEvent): string {
  switch (event.kind) {
    case 'run_started':
      return `session ${event.provider_session_id}`;
    case 'tool_use':
      return `${event.payload.tool_name} ${JSON.stringify(event.payload.input)}`;
    case 'tool_result':
      return `${JSON.stringify(event.payload.content)} error: ${event.payload.is_error}`;
    case 'assistant_message':
      return JSON.stringify(event.payload.content);
    case 'cost_update':
      return `${event.payload.total_tokens} tokens, $${event.payload.cost_usd}`;
    case 'result':
      return `${String(event.payload.status)} ${JSON.stringify(event.payload.output)}`;
    case 'stderr':
    case 'error':
      return JSON.stringify(event.payload.toMap());
    default:
      return '';
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
