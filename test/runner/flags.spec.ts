import 'reflect-metadata';
import { startRun } from '../../src/runner/run';
import { refuseFlagLike } from '../../src/runner/argument-value';
import { buildArgv } from '../../src/runner/flags';
import type { RunProvider } from '../../src/runner/types';

describe('buildArgv: one table per CLI', () => {
  it.each([
    ['claude', ['--print', '--output-format', 'stream-json', '--verbose', '--', 'Say hi']],
    ['codex', ['exec', '--json', '--skip-git-repo-check', '--', 'Say hi']],
    ['gemini', ['--output-format', 'stream-json', '--prompt=Say hi']],
    ['kilo', ['run', '--format', 'json', '--thinking', '--', 'Say hi']],
  ] as const)('%s: the headless base and the prompt last, as one element', (provider, argv) => {
    expect(buildArgv(provider, { prompt: 'Say hi' })).toEqual(argv);
  });

  it.each([
    ['claude', 'default', []],
    ['claude', 'accept-edits', ['--permission-mode', 'acceptEdits']],
    ['claude', 'bypass', ['--dangerously-skip-permissions']],
    ['claude', 'plan', ['--permission-mode', 'plan']],
    ['codex', 'default', []],
    ['codex', 'accept-edits', ['--sandbox', 'workspace-write']],
    ['codex', 'bypass', ['--dangerously-bypass-approvals-and-sandbox']],
    ['codex', 'plan', ['--sandbox', 'read-only']],
    ['gemini', 'default', []],
    ['gemini', 'accept-edits', ['--approval-mode', 'auto_edit']],
    ['gemini', 'bypass', ['--yolo']],
    ['gemini', 'plan', ['--approval-mode', 'plan']],
    ['kilo', 'default', []],
    ['kilo', 'accept-edits', []],
    ['kilo', 'bypass', ['--auto']],
    ['kilo', 'plan', ['--agent', 'plan']],
  ] as const)('%s permission %s', (provider, permission, flags) => {
    const base = buildArgv(provider, { prompt: 'p' });
    const prompt = provider === 'gemini' ? 1 : 2; // `--prompt=p`, or `--` and `p`
    expect(buildArgv(provider, { prompt: 'p', permission })).toEqual([...base.slice(0, -prompt), ...flags, ...base.slice(-prompt)]);
  });

  it('claude: every option, in order; the variadic --allowedTools cannot swallow the prompt', () => {
    expect(
      buildArgv('claude', {
        prompt: '-starts with a dash',
        model: 'opus',
        permission: 'accept-edits',
        allowedTools: ['Bash', 'Read'],
        partial: true,
        args: ['--max-turns', '3'],
        resume: 'abc',
      }),
    ).toEqual([
      '--print',
      '--output-format',
      'stream-json',
      '--verbose',
      '--model',
      'opus',
      '--permission-mode',
      'acceptEdits',
      '--allowedTools',
      'Bash',
      'Read',
      '--include-partial-messages',
      '--max-turns',
      '3',
      '--resume',
      'abc',
      '--',
      '-starts with a dash',
    ]);
  });

  it('codex: resume is the `exec resume <id>` subcommand, right before the prompt; partial adds nothing', () => {
    expect(buildArgv('codex', { prompt: 'next', model: 'gpt-5.5', permission: 'bypass', resume: 'thread-1', partial: true })).toEqual([
      'exec',
      '--json',
      '--skip-git-repo-check',
      '--model',
      'gpt-5.5',
      '--dangerously-bypass-approvals-and-sandbox',
      'resume',
      'thread-1',
      '--',
      'next',
    ]);
  });

  it('gemini: allowed tools, resume, and a prompt that starts with a dash stays the value of --prompt', () => {
    expect(buildArgv('gemini', { prompt: '--yolo', allowedTools: ['run_shell_command'], resume: 'latest' })).toEqual([
      '--output-format',
      'stream-json',
      '--allowed-tools',
      'run_shell_command',
      '--resume',
      'latest',
      '--prompt=--yolo',
    ]);
  });

  it('kilo: model, --auto, resume by --session, then the prompt after `--`; partial adds nothing', () => {
    expect(
      buildArgv('kilo', { prompt: '-starts with a dash', model: 'fake/fake-model', permission: 'bypass', partial: true, resume: 'ses_1' }),
    ).toEqual([
      'run',
      '--format',
      'json',
      '--thinking',
      '--model',
      'fake/fake-model',
      '--auto',
      '--session',
      'ses_1',
      '--',
      '-starts with a dash',
    ]);
  });

  it('kilo: no flag for allowed tools', () => {
    expect(() => buildArgv('kilo', { prompt: 'p', allowedTools: ['bash'] })).toThrow('kilo has no flag for allowedTools');
  });

  it('refuses what a CLI cannot take', () => {
    expect(() => buildArgv('codex', { prompt: 'p', allowedTools: ['Bash'] })).toThrow('codex has no flag for allowedTools');
    expect(() => buildArgv('claude', { prompt: 'p', permission: 'auto' as never })).toThrow(
      'permission must be one of default, accept-edits, bypass, plan',
    );
    expect(() => buildArgv('nope' as never, { prompt: 'p' })).toThrow('provider must be one of claude, codex, gemini');
    expect(() => buildArgv('claude', { prompt: undefined as never })).toThrow('prompt must be a string');
  });

  it('pi has no `--`: a prompt pi would read as a flag or a file to attach gets a leading space, any other is as it is', () => {
    expect(buildArgv('pi', { prompt: '--help' }).at(-1)).toBe(' --help');
    expect(buildArgv('pi', { prompt: '@/etc/passwd' }).at(-1)).toBe(' @/etc/passwd');
    expect(buildArgv('pi', { prompt: 'Say -x and @y.' }).at(-1)).toBe('Say -x and @y.');
  });
});

// The finding: a request's model `--mcp-config={…}` reached Qwen Code after `--model`, where yargs
// read it as a flag of its own (an MCP server, so a shell command).
describe("a request's model never becomes a CLI flag", () => {
  const PROVIDERS: readonly RunProvider[] = ['claude', 'codex', 'gemini', 'kilo'];
  const FLAG_LIKE = [
    '--mcp-config={"mcpServers":{"x":{"command":"sh","args":["-c","touch /tmp/pwned"]}}}',
    '--yolo',
    '-m',
    'gpt-4o\n--yolo',
    'gpt-4o\0',
    'tab\there',
    'del\u007f',
  ];
  const ORDINARY = ['gpt-4o', 'claude-sonnet-4-5', 'qwen3-coder-plus', 'models/gemini-2.5-pro', 'openai/gpt-4.1'];
  const cases = PROVIDERS.flatMap((provider) => FLAG_LIKE.map((value) => [provider, value] as const));

  it.each(cases)('%s: buildArgv refuses the model %j', (provider, model) => {
    expect(() => buildArgv(provider, { prompt: 'p', model })).toThrow(
      new TypeError(`model must not start with "-" or hold control characters (it would be read as a flag): got ${JSON.stringify(model)}`),
    );
  });

  it.each(cases)('%s: buildArgv refuses the resume id %j', (provider, resume) => {
    expect(() => buildArgv(provider, { prompt: 'p', resume })).toThrow(/^resume must not start with "-"/);
  });

  it.each(FLAG_LIKE)('an allowedTools entry %j is refused (claude and gemini take the flag)', (tool) => {
    for (const provider of ['claude', 'gemini'] as const) {
      expect(() => buildArgv(provider, { prompt: 'p', allowedTools: ['Read', tool] })).toThrow(
        /^allowedTools entry must not start with "-"/,
      );
    }
  });

  it.each(cases)('%s: startRun refuses the model %j before it looks for the executable', (provider, model) => {
    // A missing executable would be ExecutableNotFoundError: the TypeError shows the model was refused first.
    expect(() => startRun({ provider, prompt: 'p', model, executable: '/nonexistent/cli' })).toThrow(/^model must not start with "-"/);
  });

  it.each(PROVIDERS)('%s: ordinary models still pass, right after --model', (provider) => {
    for (const model of ORDINARY) {
      const argv = buildArgv(provider, { prompt: 'p', model });
      expect(argv[argv.indexOf('--model') + 1]).toBe(model);
    }
  });

  it('the prompt keeps its own rule: a prompt may start with a dash and hold newlines', () => {
    expect(buildArgv('claude', { prompt: '--yolo\nand more' }).slice(-2)).toEqual(['--', '--yolo\nand more']);
  });

  it('refuseFlagLike: a dash inside a value is fine; any control character is not', () => {
    expect(() => refuseFlagLike('model', 'gpt-4o-mini')).not.toThrow();
    for (let code = 0; code < 0x20; code++) expect(() => refuseFlagLike('model', `a${String.fromCharCode(code)}b`)).toThrow(TypeError);
    expect(() => refuseFlagLike('model', 'a\u007fb')).toThrow(TypeError);
    expect(() => refuseFlagLike('model', 'a\u0080b')).not.toThrow();
  });
});
