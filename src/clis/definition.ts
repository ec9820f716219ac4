import type { ProviderProfile } from '../providers/profile';
import type { UsageFigures } from '../providers/usage';
import type { PermissionPreset, RunOptions } from '../runner/types';
import type { ProtocolFactory } from '../protocols/protocol';
import type { McpServer, McpServerKind } from '../sessions/types';
import type { AcpToolKind } from '../tools/acp-tool-kind';
import type { StoredFormat } from '../stores/stored-format';

/*
 * What the project knows about one agent CLI, in one file per CLI (`src/clis/<id>.ts`, after the
 * Elixir original's one module per provider). Every list of CLIs, every id type and every per-CLI
 * table elsewhere is derived from these definitions (`src/clis/index.ts`).
 */

/** The part of `RunOptions` that decides a one-shot run's argv. */
export type ArgvOptions = Pick<RunOptions, 'prompt' | 'model' | 'args' | 'permission' | 'allowedTools' | 'resume' | 'partial'>;

/** A CLI's one-shot mode (`startRun`): each entry answers the argv elements for one option (none when unset). */
export interface RunFlags {
  /** The fixed head: headless mode and JSON lines on stdout. */
  readonly base: readonly string[];
  readonly model: (model: string) => string[];
  /** The flags of each preset it has; a preset it lacks is refused (a TypeError naming those it has). */
  readonly permission: Readonly<Partial<Record<PermissionPreset, readonly string[]>>>;
  /** Null: the CLI has no such flag, and asking for it is an error rather than silently ignored. */
  readonly allowedTools: ((tools: readonly string[]) => string[]) | null;
  /** Null: the CLI cannot continue a session in this mode, and asking for it is an error. */
  readonly resume: ((sessionId: string) => string[]) | null;
  /** The flag for text deltas, where the CLI needs one. */
  readonly partial: readonly string[];
  /** The prompt's argv elements, always last; the prompt itself is one element. */
  readonly prompt: (prompt: string) => string[];
  /**
   * What stands in for `prompt` when the prompt goes on stdin instead (each CLI reads it there; measured with the pinned versions).
   * Null: the CLI cannot take its prompt on stdin, so a prompt too long for argv is refused with a clear error.
   */
  readonly promptOnStdin: readonly string[] | null;
  /**
   * A resumed session's usage before the run, from the CLI's own session store, when the CLI
   * carries a session's running total over into a resumed process (null or a throw: no baseline).
   */
  readonly resumeBaseline?: (sessionId: string, env: NodeJS.ProcessEnv) => UsageFigures | null;
}

/** A CLI's interactive mode (`startSession`): its command line, the protocol it speaks and its quirks. */
export interface SessionSetup {
  /** The protocol, for the README's table and errors. */
  readonly protocolName: string;
  /** The fixed argv after the executable. */
  readonly args: readonly string[];
  /** The argv that sets the model; `'protocol'`: the protocol sets it (Codex's `thread/start`); null: neither can. */
  readonly model: ((model: string) => string[]) | 'protocol' | null;
  /** The same for a session id to continue. */
  readonly resume: ((sessionId: string) => string[]) | 'protocol' | null;
  readonly protocol: ProtocolFactory;
  /** How it takes the host's MCP servers (`SessionOptions.mcpServers`); null: it takes none (they are refused). */
  readonly mcpServers: McpSetup | null;
  /**
   * The image types it takes in a prompt (`Session.send` content, the ACP agent's
   * `promptCapabilities.image`), each in its protocol's own form; empty: none, and an image is refused.
   * Embedded text resources and resource links every CLI takes, as text.
   */
  readonly imageTypes: readonly string[];
  /**
   * How long after a turn the CLI may still be saving it: `close()` ends the CLI's input no sooner
   * (a CLI that exits at end of input would lose the turn from the session it resumes later).
   */
  readonly savesTurnWithinMs?: number;
  /** How a model is chosen during a session (the ACP agent's `model` option); absent: as `ModelSetup`'s defaults. */
  readonly models?: ModelSetup;
}

/**
 * The models a CLI offers during a session, and how a switch takes effect. A CLI whose protocol
 * lists its models (`SessionProtocol.listModels`: Codex's `model/list`) offers those.
 */
export interface ModelSetup {
  /** Model names its model flag takes, offered as they are (Claude Code's aliases); default none. */
  readonly offered?: readonly string[];
  /**
   * True: the running process switches (`SessionProtocol.setModel`: Claude's control `set_model`,
   * Codex's per-turn `model`). Default false: the next turn runs in a new process that resumes
   * the session with the model (where the CLI can take both a model and a resume).
   */
  readonly switchesRunning?: boolean;
}

/** How a CLI's session takes MCP servers (`SessionOptions.mcpServers`). */
export interface McpSetup {
  /** The kinds it takes; a server of another kind is refused. */
  readonly kinds: readonly McpServerKind[];
  /** The argv that gives it the servers (checked ones: see `checkMcpServers`); `'protocol'`: its protocol passes them. */
  readonly argv: ((servers: readonly McpServer[]) => string[]) | 'protocol';
}

/** Where a CLI keeps its own sessions on disk, and their format (`listCliSessions`, `readCliSession`). */
export interface HistorySetup {
  /** The store's folder, from the environment: the CLI's own override variable, else under `HOME`. */
  readonly root: (env: NodeJS.ProcessEnv) => string;
  /** How many folders below `root` the session files are (0: in it). */
  readonly depth: number;
  /** A session file's name. */
  readonly file: RegExp;
  readonly format: StoredFormat;
  /**
   * The stored session's records as JSON lines, in order, as `format`'s profile reads them;
   * absent: the file's own lines (a JSON-lines store). For a CLI that keeps a session as one JSON
   * document, or as many files, this gives one line per record.
   */
  readonly lines?: (path: string) => AsyncIterable<string>;
  /**
   * The sessions one store file holds, each as the `path` that `lines` reads; absent: the file is
   * one session. For a CLI that keeps every session in one database (OpenCode's SQLite file).
   */
  readonly sessions?: (file: string) => Promise<readonly string[]>;
}

/**
 * How a CLI is given its credentials: what an editor tells the user (the ACP agent's
 * `authMethods`) and what can be checked here, without a network, before a prompt fails.
 */
export interface CliAuth {
  /** The variables that carry its key or token, as its documentation names them: any one set is enough. */
  readonly keyVariables: readonly string[];
  /** The argv after the executable that logs in interactively (in a terminal); null: it has no such command. */
  readonly login: readonly string[] | null;
  /**
   * The files its login leaves, under the config dir `env` chooses: one present means logged in (a
   * `LoginFile`: one whose text holds the login). A login kept in the system keychain is not seen.
   */
  readonly loginFiles: (env: NodeJS.ProcessEnv) => readonly (string | LoginFile)[];
}

/** A file the CLI keeps whether logged in or not, which holds its login when its text matches `holds`. */
export interface LoginFile {
  readonly path: string;
  readonly holds: RegExp;
}

/** One agent CLI. */
export interface CliDefinition {
  /** The id events carry in `provider` and every API takes. */
  readonly id: string;
  /** Its name for people: "Claude Code". */
  readonly name: string;
  /** The executable's usual name, looked up on `PATH`. */
  readonly executable: string;
  /** How to install it, for the error when the executable is missing. */
  readonly install: string;
  /** The npm package the e2e suite pins, where it is on npm. */
  readonly npmPackage: string | null;
  readonly env: {
    /** The variables its own documentation names for its credentials, endpoints and configuration (`*`: a prefix). */
    readonly documented: readonly string[];
    /** Variables of the host's environment it must not inherit unless the caller sets them. */
    readonly drop: readonly string[];
    /** Variables set for it unless the caller sets them (a switch that keeps a daemon of its own from outliving the run…). */
    readonly set?: Readonly<Record<string, string>>;
  };
  /**
   * Its credentials (the ACP agent's `authMethods` and `authenticate`); absent: not known here. A
   * turn that fails for want of them is an `error` event of code `auth`, which its decoder gives.
   */
  readonly auth?: CliAuth;
  /** Its JSON-lines output, read into events (`decodeLines`, `detectProvider`); absent: not decoded. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each profile has its own state type
  readonly decode?: ProviderProfile<any>;
  /** Its one-shot mode; absent: `startRun` does not run it. */
  readonly run?: RunFlags;
  /** Its interactive mode; absent: `startSession` does not hold it. */
  readonly session?: SessionSetup;
  /** Its own stored sessions; absent: not read. */
  readonly history?: HistorySetup;
  /** Its tool names, by what they do (how an editor shows a call); a name not listed is `other`. */
  readonly tools: Readonly<Record<string, AcpToolKind>>;
  /** Its to-do tools: their calls state a plan. */
  readonly planTools: readonly string[];
}
