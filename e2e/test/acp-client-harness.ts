/*
 * Drives an ACP agent with the real ACP client (test/clients/acp-client.mjs, the official SDK's
 * `client()`; an ESM script that jest cannot load, so it runs as a child process) and answers
 * what it recorded.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type {
  AuthenticateResponse,
  CloseSessionResponse,
  ContentBlock,
  InitializeResponse,
  ListSessionsResponse,
  LoadSessionResponse,
  McpServer,
  NewSessionResponse,
  PromptResponse,
  RequestPermissionRequest,
  ResumeSessionResponse,
  SessionUpdate,
  SetSessionConfigOptionResponse,
  StopReason,
} from '@agentclientprotocol/sdk';

export const ACP_CLIENT = join(__dirname, '..', '..', 'test', 'clients', 'acp-client.mjs');

/** The scenarios of acp-client.mjs (see SCENARIOS there). */
export type AcpClientScenario = 'plain' | 'allow' | 'deny' | 'two-turns' | 'cancel' | 'auth' | 'close' | 'mcp' | 'image' | 'resource';

export interface AcpClientTurn {
  /** The prompt's blocks, as sent. */
  prompt: ContentBlock[];
  /** One of stopReason (with the whole response) or error (a JSON-RPC error of session/prompt). */
  stopReason?: StopReason;
  response?: PromptResponse;
  error?: { code: number; message: string; data?: unknown };
  /** cancel scenario: session/cancel was sent after this many updates of the turn. */
  cancelSentAfterUpdates?: number;
  /** Every session/update's update, in order, as the SDK delivered it (parsed). */
  updates: SessionUpdate[];
  /** answeredOptionId null: answered `cancelled` (no option of the policy's kind, or after session/cancel). */
  permissions: { request: RequestPermissionRequest; answeredOptionId: string | null }[];
}

/** What the SDK logged, rejected or altered, and what the harness noticed (see acp-client.mjs). */
export type AcpClientLog = {
  source: 'console' | 'validation' | 'response-check' | 'sdk-reply' | 'unhandled' | 'session' | 'unhandledRejection' | 'harness';
  /** The turn it happened in (index into turns), or null. */
  turn: number | null;
  /** validation: 'rejected' (dropped / answered -32602 by the SDK) or 'altered' (the handler saw `parsed`, not `raw`). */
  problem?: 'rejected' | 'altered';
  method?: string;
  issues?: { path: string; message: string }[];
  raw?: unknown;
  parsed?: unknown;
  [key: string]: unknown;
};

export interface AcpClientRun {
  initialize: InitializeResponse;
  /** `auth`: `authenticate` with the agent's `agent` method, answered or refused. */
  authenticate: { methodId: string; result?: AuthenticateResponse; error?: { code: number; message: string; data?: unknown } } | null;
  /** `close`: the answer to `session/close` (sent after the first turn). */
  sessionClose: CloseSessionResponse | null;
  /** `close`: the agent's descendant processes just before `session/close` and once it was answered. */
  agentProcesses?: { beforeClose: { pid: number; args: string }[]; afterClose: { pid: number; args: string }[] };
  /** The `session/new` answer; null with `load` or `resume`. */
  sessionNew: NewSessionResponse | null;
  /** The `session/load` answer, with `load`. */
  sessionLoad: LoadSessionResponse | null;
  /** `set`: each `session/set_config_option` sent (value `@other` resolved), and its answer or error. */
  setConfigOptions: {
    beforeTurn: number;
    configId: string;
    value: string;
    result?: SetSessionConfigOptionResponse;
    error?: { code: number; message: string; data?: unknown };
  }[];
  /** The `session/resume` answer, with `resume`. */
  sessionResume: ResumeSessionResponse | null;
  /** With `list`: every page `session/list` answered for the cwd, in order (sent before the session's start). */
  sessionList: ListSessionsResponse[] | null;
  turns: AcpClientTurn[];
  /** session/update received while no prompt was pending (afterTurn: index of the last turn, -1 before the first). */
  outOfTurnUpdates: { afterTurn: number; update: SessionUpdate }[];
  logs: AcpClientLog[];
  /** How the agent ended after its stdin was closed (SIGTERM/SIGKILL after a 10 s grace). */
  agentExit: { code: number | null; signal: NodeJS.Signals | null } | null;
  /** The client's stderr (the agent's stderr passes through it). */
  stderr: string;
}

export interface AcpClientOptions {
  scenario: AcpClientScenario;
  /** The session's cwd and the agent's working directory. */
  cwd: string;
  /** The agent's whole environment (the client passes its own on). */
  env: Record<string, string>;
  /** The agent command and its arguments, e.g. [cli.executable, '--acp']. */
  command: string[];
  /** The client's hard timeout (default 120 s): it kills the agent and fails. */
  timeoutMs?: number;
  /** A session to load (`session/load`) instead of a new one. */
  load?: string;
  /** The MCP servers `session/new` (or `session/load`) gives the agent (ACP `McpServer`s); none by default. */
  mcpServers?: McpServer[];
  /** `session/set_config_option`s to send before a turn (`value` `@other`: the first offered value not current). */
  set?: readonly { beforeTurn: number; configId: string; value: string }[];
  /** A session to resume (`session/resume`) instead of a new one. */
  resume?: string;
  /** `session/list` of the cwd first (every page). */
  list?: boolean;
}

/** Runs acp-client.mjs against `command`; rejects (with its stderr) when the client exits non-zero. */
export function runAcpClient({
  scenario,
  cwd,
  env,
  command,
  timeoutMs,
  load,
  mcpServers,
  set = [],
  resume,
  list,
}: AcpClientOptions): Promise<AcpClientRun> {
  const args = [
    ACP_CLIENT,
    '--scenario',
    scenario,
    '--cwd',
    cwd,
    ...(timeoutMs ? ['--timeout-ms', String(timeoutMs)] : []),
    ...(load ? ['--load', load] : []),
    ...(mcpServers ? ['--mcp-servers', JSON.stringify(mcpServers)] : []),
    ...set.flatMap((entry) => ['--set', `${entry.beforeTurn}:${entry.configId}=${entry.value}`]),
    ...(resume ? ['--resume', resume] : []),
    ...(list ? ['--list'] : []),
    '--',
    ...command,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code !== 0) return reject(new Error(`acp-client exited ${code ?? signal}:\n${stderr.slice(-8000)}`));
      try {
        resolve({ ...(JSON.parse(stdout) as Omit<AcpClientRun, 'stderr'>), stderr });
      } catch (error) {
        reject(new Error(`acp-client printed no JSON (${(error as Error).message}):\n${stdout.slice(0, 2000)}\n${stderr.slice(-4000)}`));
      }
    });
  });
}
