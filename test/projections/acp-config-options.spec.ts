import {
  CLI_CATEGORY,
  ConfigOptionError,
  configOptions,
  modelChoices,
  modelSwitch,
  parseConfigChange,
  type SessionConfig,
} from '../../src/projections/acp/config-options';
import type { SessionProvider } from '../../src/sessions/types';
import { acpErrors } from './acp-schema';

/*
 * The ACP agent's configuration options (src/projections/acp/config-options.ts): built from the
 * registry, valid against the SDK's schema, and a client's value accepted only when offered.
 * The real CLIs switching are in e2e/test/acp-agent-scenarios.ts and acp-cli-switch.spec.ts.
 */

const config = (provider: SessionProvider, more: Partial<SessionConfig> = {}): SessionConfig => ({
  provider,
  model: null,
  models: modelChoices(provider, null),
  mode: 'ask',
  clis: null,
  ...more,
});

const values = (options: ReturnType<typeof configOptions>, id: string) =>
  (options.find((option) => option.id === id)?.options as { value: string }[]).map((choice) => choice.value);

describe('configOptions', () => {
  it('a pinned Claude Code: model (its aliases, switched in the running session) and mode; no cli; each valid ACP', () => {
    const options = configOptions(config('claude'));
    for (const option of options) expect({ option, errors: acpErrors('SessionConfigOption', option) }).toEqual({ option, errors: [] });
    expect(options.map((option) => [option.id, option.category, option.currentValue])).toEqual([
      ['model', 'model', 'default'],
      ['mode', 'mode', 'ask'],
    ]);
    expect(values(options, 'model')).toEqual(['default', 'sonnet', 'opus', 'haiku']);
    expect(values(options, 'mode')).toEqual(['ask', 'allow', 'deny']);
    expect(options[0].description).toContain('in the running session');
  });

  it('the models a CLI listed (Codex model/list) replace the registry names; a chosen model is current, the default no longer offered', () => {
    const listed = [
      { id: 'gpt-a', name: 'A' },
      { id: 'gpt-b', name: 'B', description: 'the other' },
    ];
    const options = configOptions(config('codex', { model: 'gpt-b', models: modelChoices('codex', listed) }));
    expect(options[0]).toMatchObject({
      currentValue: 'gpt-b',
      options: [{ value: 'gpt-b', name: 'B', description: 'the other' }, { value: 'gpt-a' }],
    });
    // A model given on the command line that the list lacks is still offered (it is the current one).
    expect(values(configOptions(config('codex', { model: 'mine', models: listed })), 'model')).toEqual(['mine', 'gpt-a', 'gpt-b']);
  });

  it('how a model switch takes effect comes from the registry: in the running session, or by a resume (said in the description)', () => {
    expect([modelSwitch('claude'), modelSwitch('codex'), modelSwitch('gemini'), modelSwitch('copilot'), modelSwitch('pi')]).toEqual([
      'running',
      'running',
      'running',
      'resume',
      'resume',
    ]);
    expect(configOptions(config('copilot'))[0].description).toContain('resumes the session in a new Copilot CLI process');
    // Copilot CLI lists no models: its current one only.
    expect(values(configOptions(config('copilot', { model: 'gpt-x' })), 'model')).toEqual(['gpt-x']);
  });

  it("a provider-less agent's sessions offer the CLIs as `cli`, with an `_`-prefixed category (plain ones are reserved)", () => {
    const options = configOptions(config('codex', { clis: ['claude', 'codex'] }));
    const cli = options.find((option) => option.id === 'cli');
    expect(acpErrors('SessionConfigOption', cli)).toEqual([]);
    expect(cli).toMatchObject({
      category: CLI_CATEGORY,
      currentValue: 'codex',
      options: [
        { value: 'claude', name: 'Claude Code' },
        { value: 'codex', name: 'Codex' },
      ],
    });
    expect(CLI_CATEGORY.startsWith('_')).toBe(true);
    expect(cli?.description).toContain('new conversation');
    // The running CLI stays offered even when it is no longer found.
    expect(values(configOptions(config('qwen', { clis: ['claude'] })), 'cli')).toEqual(['qwen', 'claude']);
  });
});

describe('parseConfigChange: only an offered value of an offered option', () => {
  const session = config('claude', { clis: ['claude', 'codex'] });

  it('accepts each option', () => {
    expect(parseConfigChange(session, 'model', 'opus')).toEqual({ option: 'model', model: 'opus' });
    expect(parseConfigChange(session, 'mode', 'deny')).toEqual({ option: 'mode', mode: 'deny' });
    expect(parseConfigChange(session, 'cli', 'codex')).toEqual({ option: 'cli', cli: 'codex' });
  });

  it.each([
    ['model', '--dangerously-skip-permissions', 'model cannot be "--dangerously-skip-permissions": default, sonnet, opus, haiku'],
    ['model', 'claude-opus-9', 'model cannot be "claude-opus-9"'],
    ['model', true, 'model cannot be true'],
    ['mode', 'yolo', 'mode cannot be "yolo": ask, allow, deny'],
    ['cli', 'gemini', 'cli cannot be "gemini": claude, codex'],
    ['cli', 'constructor', 'cli cannot be "constructor"'],
    ['effort', 'high', 'no config option "effort": model, mode, cli'],
    [undefined, 'opus', 'no config option undefined'],
  ])('refuses %j = %j', (id, value, message) => {
    expect(() => parseConfigChange(session, id, value)).toThrow(ConfigOptionError);
    expect(() => parseConfigChange(session, id, value)).toThrow(message);
  });

  it('a pinned agent has no cli option to set', () => {
    expect(() => parseConfigChange(config('claude'), 'cli', 'codex')).toThrow('no config option "cli": model, mode');
  });
});
