import { CLIS, sessionSetup } from '../../clis';
import type { CliModel } from '../../protocols/protocol';
import type { JsonObject, JsonValue } from '../../schema/json';
import type { ApprovalPolicy, Session, SessionProvider } from '../../sessions/types';

/*
 * The ACP agent's session configuration options (ACP's `configOptions`: the schema's only way for
 * an editor to show a model picker): `model`, `mode` and, on an agent with no `--provider`, `cli`.
 * What each CLI can do comes from its registry entry (`session.models`); the values a client may
 * choose are exactly the ones offered, so nothing a client sends becomes a flag unchecked.
 */

/** The options' ids, each written once. */
export const CONFIG_IDS = { model: 'model', mode: 'mode', cli: 'cli' } as const;

/** The `cli` option's category: the spec reserves categories without a leading `_`. */
export const CLI_CATEGORY = '_cli';

/** The `model` value of a session started without one: the CLI's own choice. */
export const DEFAULT_MODEL = 'default';

/**
 * The agent's modes: who answers a tool call's permission (the session's approval policies).
 * `ask` sends each request to the client (`session/request_permission`).
 */
export const MODES: readonly { id: ApprovalPolicy; name: string; description: string }[] = [
  { id: 'ask', name: 'Ask', description: 'Ask before each tool call the CLI asks about' },
  { id: 'allow', name: 'Allow all', description: 'Allow every tool call the CLI asks about' },
  { id: 'deny', name: 'Deny all', description: 'Deny every tool call the CLI asks about (read-only work)' },
];

/** The `modes` of a `session/new` or `session/load` answer. */
export function modesOf(current: ApprovalPolicy): JsonObject {
  return { modes: { currentModeId: current, availableModes: MODES.map((mode) => ({ ...mode })) } };
}

/** One ACP session's configuration: what its options show. */
export interface SessionConfig {
  /** The CLI its session runs. */
  provider: SessionProvider;
  /** The model chosen; null: the CLI's own choice (`DEFAULT_MODEL`). */
  model: string | null;
  /** The models offered (the CLI's list, or its registry's names); the current one is offered too. */
  models: readonly CliModel[];
  mode: ApprovalPolicy;
  /** The CLIs offered by the `cli` option; null: the agent's CLI is pinned (no such option). */
  clis: readonly SessionProvider[] | null;
}

/** How a model chosen during a session takes effect for `provider`: null where it cannot be switched. */
export function modelSwitch(provider: SessionProvider): 'running' | 'resume' | null {
  const setup = sessionSetup(provider);
  if (setup.models?.switchesRunning) return 'running';
  // A new process that resumes the session with the model: the CLI must take both.
  return setup.model !== null && setup.resume !== null ? 'resume' : null;
}

/** The models to offer for `provider`: those the CLI listed, else its registry's names. */
export function modelChoices(provider: SessionProvider, listed: readonly CliModel[] | null): CliModel[] {
  if (listed && listed.length > 0) return [...listed];
  return (sessionSetup(provider).models?.offered ?? []).map((id) => ({ id, name: id }));
}

const MODEL_DESCRIPTIONS: Record<'running' | 'resume' | 'none', (name: string) => string> = {
  running: (name) => `The model of ${name}; a change applies from the next turn, in the running session.`,
  resume: (name) =>
    `The model of ${name}; a change applies from the next turn, which resumes the session in a new ${name} process with it.`,
  none: (name) => `The model of ${name}, which cannot switch it during a session.`,
};

/** The model values of `config`: the current one first (the CLI's own choice, when none was chosen), then the offered ones. */
function modelValues(config: SessionConfig): { value: string; name: string; description?: string }[] {
  const values = new Map<string, { value: string; name: string; description?: string }>();
  if (config.model === null)
    values.set(DEFAULT_MODEL, {
      value: DEFAULT_MODEL,
      name: 'Default',
      description: "The CLI's own choice (its configuration or default)",
    });
  else values.set(config.model, { value: config.model, name: config.model });
  if (modelSwitch(config.provider) !== null)
    for (const model of config.models)
      values.set(model.id, { value: model.id, name: model.name, ...(model.description ? { description: model.description } : {}) });
  return [...values.values()];
}

/** The session's `configOptions` (ACP's `SessionConfigOption`s, all of type `select`). */
export function configOptions(config: SessionConfig): JsonObject[] {
  const name = CLIS[config.provider].name;
  const options: JsonObject[] = [
    {
      id: CONFIG_IDS.model,
      name: 'Model',
      description: MODEL_DESCRIPTIONS[modelSwitch(config.provider) ?? 'none'](name),
      category: 'model',
      type: 'select',
      currentValue: config.model ?? DEFAULT_MODEL,
      options: modelValues(config),
    },
    {
      id: CONFIG_IDS.mode,
      name: 'Mode',
      description: 'Who answers the permission requests of the tool calls (the same as the session mode).',
      category: 'mode',
      type: 'select',
      currentValue: config.mode,
      options: MODES.map((mode) => ({ value: mode.id, name: mode.name, description: mode.description })),
    },
  ];
  if (config.clis !== null) {
    const clis = config.clis.includes(config.provider) ? config.clis : [config.provider, ...config.clis];
    options.push({
      id: CONFIG_IDS.cli,
      name: 'Agent CLI',
      description:
        "The agent CLI that answers the next turn. A change starts a new conversation with the other CLI: a CLI cannot resume another one's session.",
      category: CLI_CATEGORY,
      type: 'select',
      currentValue: config.provider,
      options: clis.map((id) => ({ value: id, name: CLIS[id].name })),
    });
  }
  return options;
}

/** A change `session/set_config_option` asked for, validated against the offered values. */
export type ConfigChange =
  | { readonly option: 'model'; readonly model: string }
  | { readonly option: 'mode'; readonly mode: ApprovalPolicy }
  | { readonly option: 'cli'; readonly cli: SessionProvider };

/** A `session/set_config_option` the agent cannot do: an unknown option, or a value not offered. */
export class ConfigOptionError extends Error {}

/**
 * The change asking `configId` to be `value`, checked against what `configOptions(config)` offers:
 * a ConfigOptionError names the values offered otherwise. A value equal to the current one is
 * still a change (the caller may skip it).
 */
export function parseConfigChange(config: SessionConfig, configId: JsonValue | undefined, value: JsonValue | undefined): ConfigChange {
  const option = configOptions(config).find((candidate) => candidate.id === configId);
  if (!option) {
    const ids = configOptions(config).map((candidate) => candidate.id);
    throw new ConfigOptionError(`no config option ${JSON.stringify(configId)}: ${ids.join(', ')}`);
  }
  const offered = (option.options as JsonObject[]).map((entry) => entry.value as string);
  if (typeof value !== 'string' || !offered.includes(value))
    throw new ConfigOptionError(`${String(option.id)} cannot be ${JSON.stringify(value)}: ${offered.join(', ')}`);
  if (option.id === CONFIG_IDS.mode) return { option: 'mode', mode: value as ApprovalPolicy };
  if (option.id === CONFIG_IDS.cli) return { option: 'cli', cli: value as SessionProvider };
  return { option: 'model', model: value };
}

/**
 * How long a `session/new` answer waits for the CLI's model list (the CLI starting, then answering
 * `model/list` or its own `session/new`); a list that comes later is sent as a `config_option_update`.
 */
export const MODEL_LIST_WAIT_MS = 5_000;

/** The models `session`'s CLI lists; null where it lists none, fails to, or ends first. */
export function listedModels(session: Session): Promise<readonly CliModel[] | null> {
  return Promise.race([session.models().catch(() => null), session.done.then(() => null)]);
}

/** Settles when `promise` does, or after `ms` at the latest. */
export async function within(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([promise, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  } finally {
    clearTimeout(timer);
  }
}
