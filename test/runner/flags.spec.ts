import { buildArgv } from '../../src/runner/flags';

describe('buildArgv: one table per CLI', () => {
  it.each([
    ['claude', ['--print', '--output-format', 'stream-json', '--verbose', '--', 'Say hi']],
    ['codex', ['exec', '--json', '--skip-git-repo-check', '--', 'Say hi']],
    ['gemini', ['--output-format', 'stream-json', '--prompt=Say hi']],
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
  ] as const)('%s permission %s', (provider, permission, flags) => {
    const base = buildArgv(provider, { prompt: 'p' });
    const prompt = provider === 'gemini' ? 1 : 2; // `--prompt=p`, or `--` and `p`
    expect(buildArgv(provider, { prompt: 'p', permission })).toEqual([...base.slice(0, -prompt), ...flags, ...base.slice(-prompt)]);
  });

  it('claude: every option, in order; the variadic --allowedTools cannot swallow the prompt', () => {
    expect(buildArgv('claude', { prompt: '-starts with a dash', model: 'opus', permission: 'accept-edits', allowedTools: ['Bash', 'Read'], partial: true, args: ['--max-turns', '3'], resume: 'abc' })).toEqual([
      '--print', '--output-format', 'stream-json', '--verbose',
      '--model', 'opus',
      '--permission-mode', 'acceptEdits',
      '--allowedTools', 'Bash', 'Read',
      '--include-partial-messages',
      '--max-turns', '3',
      '--resume', 'abc',
      '--', '-starts with a dash',
    ]);
  });

  it('codex: resume is the `exec resume <id>` subcommand, right before the prompt; partial adds nothing', () => {
    expect(buildArgv('codex', { prompt: 'next', model: 'gpt-5.5', permission: 'bypass', resume: 'thread-1', partial: true })).toEqual([
      'exec', '--json', '--skip-git-repo-check', '--model', 'gpt-5.5', '--dangerously-bypass-approvals-and-sandbox', 'resume', 'thread-1', '--', 'next',
    ]);
  });

  it('gemini: allowed tools, resume, and a prompt that starts with a dash stays the value of --prompt', () => {
    expect(buildArgv('gemini', { prompt: '--yolo', allowedTools: ['run_shell_command'], resume: 'latest' })).toEqual([
      '--output-format', 'stream-json', '--allowed-tools', 'run_shell_command', '--resume', 'latest', '--prompt=--yolo',
    ]);
  });

  it('refuses what a CLI cannot take', () => {
    expect(() => buildArgv('codex', { prompt: 'p', allowedTools: ['Bash'] })).toThrow('codex has no flag for allowedTools');
    expect(() => buildArgv('claude', { prompt: 'p', permission: 'auto' as never })).toThrow('permission must be one of default, accept-edits, bypass, plan');
    expect(() => buildArgv('nope' as never, { prompt: 'p' })).toThrow('provider must be one of claude, codex, gemini');
    expect(() => buildArgv('claude', { prompt: undefined as never })).toThrow('prompt must be a string');
  });
});
