import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startSession, type AnyEvent } from '../src';
import { startScriptedCli } from '../e2e/scripted/setup';

/*
 * A session with the real Claude Code (pinned in e2e/, `npm install --prefix e2e`) against a scripted
 * model endpoint on 127.0.0.1: the model asks to write a file twice; the host denies the first
 * write and allows the second; an interrupt stops a slow answer; the session stays usable.
 * Run it with: npm run example:session
 */
async function main(): Promise<void> {
  const cli = await startScriptedCli('claude', [
    { shell: 'echo draft > notes.txt' },
    { text: 'I was not allowed to write notes.txt.' },
    { shell: 'echo final > notes.txt' },
    { text: 'I wrote notes.txt.' },
    { slowText: 'A very long story, told very slowly. '.repeat(20), delayMs: 200 },
    { text: 'Still here.' },
  ]);
  let asked = 0;
  const session = startSession({
    provider: 'claude', // or codex, gemini, opencode, qwen, copilot
    cwd: cli.cwd,
    executable: cli.executable, // default: `claude` on PATH
    env: cli.env, // the scripted endpoint's ANTHROPIC_BASE_URL, a throwaway HOME
    // The host decides each tool call; unanswered ones are denied after approvalTimeoutMs.
    onApproval: () => (++asked === 1 ? { decision: 'deny', reason: 'Not the draft, please.' } : { decision: 'allow' }),
  });
  const printing = (async () => {
    for await (const event of session) if (shown(event)) console.log(event.sequence, event.kind, describe(event));
  })();
  try {
    for (const prompt of ['Write a draft to notes.txt.', 'Write the final notes.txt.']) {
      const result = await session.send(prompt);
      console.log(`-- turn: ${String(result.payload.status)}; notes.txt: ${existsSync(join(cli.cwd, 'notes.txt')) ? 'written' : 'absent'}`);
    }
    const slow = session.send('Tell me a long story.');
    setTimeout(() => void session.interrupt(), 1500);
    console.log(`-- turn: ${String((await slow).payload.status)}`);
    console.log(`-- turn: ${String((await session.send('Are you still there?')).payload.output)}`);
    const { status, sessionId, counts } = await session.close();
    await printing;
    console.log({ status, sessionId, turns: counts.result, approvals: counts.approval_requested });
  } finally {
    await session.close();
    await cli.close();
  }
}

/** Claude's stream bookkeeping (raw) and the streamed pieces of text are left out here. */
function shown(event: AnyEvent): boolean {
  return event.kind !== 'raw' && event.kind !== 'assistant_delta' && event.kind !== 'stderr';
}

/** One line per event; `kind` narrows the payload. */
function describe(event: AnyEvent): string {
  switch (event.kind) {
    case 'run_started':
      return `session ${event.provider_session_id ?? ''}`;
    case 'user_message':
      return JSON.stringify(event.payload.content);
    case 'tool_use':
      return `${event.payload.tool_name} ${JSON.stringify(event.payload.input)}`;
    case 'approval_requested':
      return `${event.payload.approval_id ?? ''} ${event.payload.subject ?? ''}`;
    case 'approval_resolved':
      return `${event.payload.approval_id ?? ''} ${String(event.payload.decision)} ${event.payload.reason ?? ''}`;
    case 'tool_result':
      return `${JSON.stringify(event.payload.content)} error: ${event.payload.is_error}`;
    case 'assistant_message':
      return JSON.stringify(event.payload.content).slice(0, 80);
    case 'result':
      return `${String(event.payload.status)} ${JSON.stringify(event.payload.output)}`;
    case 'cost_update':
      return `${event.payload.total_tokens} tokens, $${event.payload.cost_usd}`;
    default:
      return '';
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
