import { amp } from './amp';
import { claude } from './claude';
import { cline } from './cline';
import { codex } from './codex';
import { copilot } from './copilot';
import { cursor } from './cursor';
import type { CliDefinition, HistorySetup, RunFlags, SessionSetup } from './definition';
import { gemini } from './gemini';
import { kilo } from './kilo';
import { opencode } from './opencode';
import { pi } from './pi';
import { qwen } from './qwen';

export type { ArgvOptions, CliDefinition, HistorySetup, ModelSetup, RunFlags, SessionSetup } from './definition';

/*
 * The CLI registry: every agent CLI the project knows, one file each. Every list of CLIs and every
 * id type is derived from it, by capability. Its order is the order `detectProvider` asks the
 * decoders in: Claude's lines are recognised before those of the CLIs that print lookalikes of
 * them (Cursor, Amp, Qwen Code), and each of those is told apart by a mark of its own. Kilo Code
 * prints OpenCode's lines unchanged and comes after it, detecting none.
 * Cline's lines are its own (`hook_event`, `agent_event`, `run_result`).
 */
export const CLIS = { claude, codex, gemini, cursor, opencode, amp, qwen, copilot, pi, kilo, cline } as const satisfies Record<
  string,
  CliDefinition
>;

type Clis = typeof CLIS;

/** Every CLI's id. */
export type CliId = keyof Clis;
/** The CLIs whose output `decodeLines` reads. */
export type DecodeCli = { [K in CliId]: Clis[K] extends { decode: object } ? K : never }[CliId];
/** The CLIs `startRun` runs. */
export type RunCli = { [K in CliId]: Clis[K] extends { run: RunFlags } ? K : never }[CliId];
/** The CLIs `startSession` holds conversations with. */
export type SessionCli = { [K in CliId]: Clis[K] extends { session: SessionSetup } ? K : never }[CliId];
/** The CLIs whose own stored sessions `listCliSessions` lists. */
export type HistoryCli = { [K in CliId]: Clis[K] extends { history: HistorySetup } ? K : never }[CliId];
/** The CLIs this package starts (runs, sessions, or both). */
export type StartedCli = RunCli | SessionCli;

/** Every CLI's id, in the registry's order. */
export const CLI_IDS = Object.keys(CLIS) as CliId[];

const withCapability = <K extends CliId>(has: (cli: CliDefinition) => boolean) => CLI_IDS.filter((id) => has(CLIS[id])) as K[];

/** The CLIs whose output is decoded, in the order `detectProvider` asks them. */
export const DECODE_CLI_IDS: readonly DecodeCli[] = withCapability<DecodeCli>((cli) => cli.decode !== undefined);
/** The CLIs `startRun` runs. */
export const RUN_CLI_IDS: readonly RunCli[] = withCapability<RunCli>((cli) => cli.run !== undefined);
/** The CLIs `startSession` holds conversations with. */
export const SESSION_CLI_IDS: readonly SessionCli[] = withCapability<SessionCli>((cli) => cli.session !== undefined);

/** The CLIs whose own stored sessions are read, in the registry's order. */
export const HISTORY_CLI_IDS: readonly HistoryCli[] = withCapability<HistoryCli>((cli) => cli.history !== undefined);

/** The definition of a known CLI id. */
export function cliDefinition(id: CliId): CliDefinition {
  return CLIS[id];
}

/** True when `value` names a CLI of the registry with the capability `among` lists (all by default). */
export function isCliId<K extends CliId = CliId>(value: unknown, among: readonly K[] = CLI_IDS as K[]): value is K {
  return typeof value === 'string' && (among as readonly string[]).includes(value);
}

/** The one-shot flags of a CLI `startRun` runs. */
export function runFlags(id: RunCli): RunFlags {
  return CLIS[id].run;
}

/** The session setup of a CLI `startSession` holds. */
export function sessionSetup(id: SessionCli): SessionSetup {
  return CLIS[id].session;
}

/** Where a CLI with history keeps its sessions, and their format. */
export function historySetup(id: HistoryCli): HistorySetup {
  return CLIS[id].history;
}
