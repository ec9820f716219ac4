import type { ServerResponse } from 'node:http';
import { turnAt, type ScriptedTurn } from './script';
import { jsonBody, sendJson, sendSse, startScriptedServer, startSse, type RecordedRequest, type ScriptedServer } from './server';

/*
 * A scripted OpenAI Chat Completions API for the CLIs that speak it: OpenCode 1.18.33 (through
 * @ai-sdk/openai-compatible), Qwen Code 0.15.10 and Copilot CLI 1.0.102 (both through the openai
 * JS SDK). Every model call is `POST …/v1/chat/completions` with `stream: true` and
 * `stream_options.include_usage`; each agent turn is streamed as `data: {chat.completion.chunk}`
 * frames ending with `data: [DONE]`:
 * - text arrives as `delta.content` pieces after a first `{role: "assistant", content: ""}` delta;
 * - thinking as `delta.reasoning_content` before the text (DeepSeek's field, which all three read:
 *   OpenCode prints it as a `reasoning` part with `run --thinking`, Qwen as a `thinking` block,
 *   Copilot as `assistant.reasoning`);
 * - a `{shell}` turn as one `tool_calls` delta (id and name, then the arguments JSON in two
 *   pieces) and `finish_reason: "tool_calls"`. The tool is the CLI's own shell tool as the request
 *   declares it: `bash` ({command, timeout?, workdir?}) for OpenCode, `run_shell_command`
 *   ({command, description?, is_background?, timeout?, directory?}) for Qwen, `bash` ({command,
 *   description, shellId?, mode?, …}, description required) for Copilot; `description` is sent
 *   when the tool declares it;
 * - the last chunk has `choices: []` and `usage` (when `include_usage` is asked for);
 * - a call without `stream: true` gets one `chat.completion` JSON (none of the three makes one);
 * - `{httpError}` answers OpenAI's error JSON `{"error":{message,type,param,code}}`.
 * `GET …/v1/models` lists the scripted model.
 *
 * Side calls do not consume turns. The agent's calls are told apart by their system prompt: the
 * first call that declares tools is the agent's, and the opening of its first (system) message
 * names the agent for the rest of the endpoint's life; a later call is an agent turn when it
 * declares tools and opens its system message the same way. Everything else is a side call and
 * gets a short streamed text (SIDE_ANSWER). Why, measured:
 * - OpenCode makes a title call with no tools (system "You are a title generator…") before the
 *   first agent call of a session;
 * - Qwen runs background "forked agents" that reuse the conversation and declare tools too, so
 *   tools alone do not tell them apart: the managed-memory extraction after a finished turn
 *   (system "You are now acting as the managed memory extraction subagent…", read-only tools
 *   in default approval mode, the shell as well in yolo), and in its bundle memory recall, "dream",
 *   skill extraction and forked workers, each with a system prompt of its own;
 * - the agent's own prompt is not one fixed text: Copilot opens with "You are the GitHub Copilot
 *   CLI…" under `-p` but "You are GitHub Copilot, an AI coding agent…" under `--acp` (OpenCode
 *   picks its prompt by model id), so the endpoint learns it instead of listing it;
 * - Copilot made no side call here (it marks the follow-up calls of a turn `x-initiator: agent`).
 * A wrong guess is loud, not a silently shifted script: were a side call with tools ever first,
 * the real agent calls would get the side answer. `chatCallKind(request)` tells how a recorded
 * request was taken.
 *
 * Retries do not consume turns either. A 5xx is retried with the same `messages`, so an agent
 * call with the same messages as the call that got the scripted error is a retry and gets the
 * same error. Measured with a 500: OpenCode retries 5 times (about 75 s), Copilot 5 times (about
 * 14 s), Qwen 28 calls (its own 7 attempts of the openai SDK's 4, about 90 s). A 400 is not
 * retried: prefer it where a quick failure is wanted. OpenCode then prints an `error` line and
 * exits 1, Copilot a `session.error` line and exits 1, Qwen an assistant text `[API Error: 400 …]`
 * and a `success` result, exit 0.
 */

/** The model name the CLIs are configured with and `GET /models` lists. */
export const SCRIPTED_CHAT_MODEL = 'fake-model';

/** How many characters of the system prompt name the agent (its opening is fixed text in all three CLIs). */
const PROMPT_OPENING = 64;

/** The text every side call gets (OpenCode makes it the session title). */
const SIDE_ANSWER = 'Scripted session';

type Json = Record<string, unknown>;

/** How the endpoint took a call: an agent turn (plays the script) or a side call. */
export type ChatCallKind = 'agent' | 'side';

const kinds = new WeakMap<RecordedRequest, ChatCallKind>();

/** How the endpoint took a recorded `POST …/chat/completions` (undefined for other requests). */
export function chatCallKind(request: RecordedRequest): ChatCallKind | undefined {
  return kinds.get(request);
}

/** The opening of a call's system prompt ('' without one). */
function promptOpening(body: Json): string {
  const first = Array.isArray(body.messages) ? (body.messages[0] as Json | undefined) : undefined;
  return first?.role === 'system' ? contentText(first.content).slice(0, PROMPT_OPENING) : '';
}

/** A message's text: a string, or the text parts of a content list (Qwen sends lists). */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part) => (typeof (part as Json)?.text === 'string' ? (part as Json).text : '')).join('');
  return '';
}

/**
 * Starts a scripted Chat Completions endpoint on 127.0.0.1 that plays `script`, one turn per
 * agent model call, in order (then "done."). Point the CLIs at `${server.url}/v1`.
 */
/** The shared script plus a call of any tool by name (an MCP tool: OpenCode names them `<server>_<tool>`), as a Responses script's `call`. */
export type ChatTurn = ScriptedTurn | { readonly call: string; readonly args: Record<string, unknown> };

export async function startOpenAIChatEndpoint(script: readonly ChatTurn[]): Promise<ScriptedServer> {
  let turns = 0;
  let calls = 0;
  let failed: { messages: string; status: number; message: string } | null = null;
  let agentPrompt: string | null = null;
  return startScriptedServer(async (request, response) => {
    const path = request.url.split('?')[0] ?? '';
    if (request.method === 'GET' && path.endsWith('/models')) {
      sendJson(response, 200, {
        object: 'list',
        data: [{ id: SCRIPTED_CHAT_MODEL, object: 'model', created: 1767225600, owned_by: 'scripted' }],
      });
      return;
    }
    if (request.method !== 'POST' || !path.endsWith('/chat/completions')) {
      sendJson(response, 404, apiError(`no scripted route for ${request.method} ${path}`, 'invalid_request_error'));
      return;
    }
    const body = jsonBody(request);
    const id = `chatcmpl-scripted${String(++calls).padStart(4, '0')}`;
    const declaresTools = Array.isArray(body.tools) && body.tools.length > 0;
    if (declaresTools && agentPrompt === null) agentPrompt = promptOpening(body);
    const kind: ChatCallKind = declaresTools && promptOpening(body) === agentPrompt ? 'agent' : 'side';
    kinds.set(request, kind);
    if (kind === 'side') {
      await playTurn(response, body, id, { text: SIDE_ANSWER }, SIDE_USAGE);
      return;
    }
    const messages = JSON.stringify(body.messages ?? null);
    if (failed?.messages === messages) {
      sendError(response, failed.status, failed.message);
      return;
    }
    const index = turns++;
    const turn = turnAt(script, index);
    if ('httpError' in turn) {
      failed = { messages, status: turn.httpError, message: turn.message };
      sendError(response, turn.httpError, turn.message);
      return;
    }
    failed = null;
    await playTurn(response, body, id, turn, usageFor(index, 'thinking' in turn ? tokensOf(turn.thinking) : 0));
  });
}

/** One tool call of the answer. */
interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** Answers one call with `turn` (not an httpError), streamed or as one JSON. */
async function playTurn(
  response: ServerResponse,
  body: Json,
  id: string,
  turn: Exclude<ChatTurn, { httpError: number }>,
  usage: Usage,
): Promise<void> {
  const model = typeof body.model === 'string' ? body.model : SCRIPTED_CHAT_MODEL;
  const callId = `call_${id.slice('chatcmpl-'.length)}`;
  const toolCall =
    'shell' in turn
      ? shellCall(body, callId, turn.shell)
      : 'call' in turn
        ? { id: callId, name: turn.call, arguments: JSON.stringify(turn.args) }
        : null;
  const text = 'slowText' in turn ? turn.slowText : 'text' in turn ? turn.text : '';
  const finishReason = toolCall ? 'tool_calls' : 'stop';
  if (body.stream !== true) {
    const message = {
      role: 'assistant',
      content: toolCall ? null : text,
      ...('thinking' in turn ? { reasoning_content: turn.thinking } : {}),
      ...(toolCall
        ? { tool_calls: [{ id: toolCall.id, type: 'function', function: { name: toolCall.name, arguments: toolCall.arguments } }] }
        : {}),
    };
    sendJson(response, 200, {
      id,
      object: 'chat.completion',
      created: CREATED,
      model,
      choices: [{ index: 0, message, finish_reason: finishReason }],
      usage,
    });
    return;
  }
  let gone = false;
  response.on('close', () => (gone = true));
  startSse(response);
  const chunk = (delta: Json, finish: string | null = null) =>
    sendSse(response, {
      id,
      object: 'chat.completion.chunk',
      created: CREATED,
      model,
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
  chunk({ role: 'assistant', content: '' });
  if (toolCall) {
    chunk({ tool_calls: [{ index: 0, id: toolCall.id, type: 'function', function: { name: toolCall.name, arguments: '' } }] });
    // Arguments arrive as partial JSON text; split it to look like the real thing.
    const half = Math.floor(toolCall.arguments.length / 2);
    for (const piece of [toolCall.arguments.slice(0, half), toolCall.arguments.slice(half)])
      chunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] });
  } else if ('slowText' in turn) {
    for (const piece of pieces(turn.slowText, 4)) {
      await sleep(turn.delayMs);
      // The client went away (a cancelled turn): stop writing.
      if (gone || response.destroyed || response.writableEnded) return;
      chunk({ content: piece });
    }
  } else {
    if ('thinking' in turn) chunk({ reasoning_content: turn.thinking });
    // Real answers arrive in several chunks cut anywhere, mid-word included.
    for (const piece of pieces(text, 7)) chunk({ content: piece });
  }
  chunk({}, finishReason);
  const options = body.stream_options as { include_usage?: unknown } | undefined;
  if (options?.include_usage === true)
    sendSse(response, { id, object: 'chat.completion.chunk', created: CREATED, model, choices: [], usage });
  response.write('data: [DONE]\n\n');
  response.end();
}

/**
 * The shell tools the CLIs declare: `bash` (OpenCode, Copilot), `run_shell_command` (Qwen),
 * `run_commands` (Cline: `{commands: [..]}`, a list). A `{shell}` turn calls the one the request
 * declares, with the arguments its schema names.
 */
const SHELL_TOOLS = ['bash', 'run_shell_command', 'run_commands'];

/** A call of the CLI's shell tool, named and shaped as the request declares it. */
function shellCall(body: Json, id: string, command: string): ToolCall {
  const tools = Array.isArray(body.tools) ? (body.tools as { function?: { name?: string; parameters?: { properties?: Json } } }[]) : [];
  const declared = tools.find((tool) => SHELL_TOOLS.includes(tool.function?.name ?? ''))?.function;
  // Not declared (Qwen in -p default approval mode leaves its shell out): call it anyway, as a model may.
  const name = declared?.name ?? (tools.some((tool) => tool.function?.name === 'list_directory') ? 'run_shell_command' : 'bash');
  const properties = declared?.parameters?.properties ?? {};
  const args: Json = 'commands' in properties ? { commands: [command] } : { command };
  if ('description' in properties) args.description = 'Run the scripted command';
  return { id, name, arguments: JSON.stringify(args) };
}

const CREATED = 1767225600;

/** Chat Completions `usage`. */
interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number };
  completion_tokens_details: { reasoning_tokens: number };
}

/** Fixed, distinct counts per agent turn (whatever side calls came between), so a transcript shows how the CLI adds them up. */
function usageFor(index: number, reasoningTokens: number): Usage {
  const prompt = 1000 + 100 * index;
  const completion = 20 + 5 * index + reasoningTokens;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: index === 0 ? 0 : 800 },
    completion_tokens_details: { reasoning_tokens: reasoningTokens },
  };
}

const SIDE_USAGE: Usage = {
  prompt_tokens: 50,
  completion_tokens: 5,
  total_tokens: 55,
  prompt_tokens_details: { cached_tokens: 0 },
  completion_tokens_details: { reasoning_tokens: 0 },
};

/** OpenAI's error answer. */
function sendError(response: ServerResponse, status: number, message: string): void {
  sendJson(response, status, apiError(message, errorType(status)));
}

function apiError(message: string, type: string): Json {
  return { error: { message, type, param: null, code: null } };
}

/** OpenAI's error `type` for an HTTP status. */
function errorType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 429) return 'rate_limit_error';
  return status >= 500 ? 'server_error' : 'invalid_request_error';
}

/** `text` cut into pieces of `size` characters (whole code points). */
function pieces(text: string, size: number): string[] {
  const chars = Array.from(text);
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(''));
  return out.length > 0 ? out : [''];
}

/** A rough token count (4 characters a token), at least 1. */
const tokensOf = (text: string) => Math.max(1, Math.ceil(text.length / 4));

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
