import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { SESSION_CLI_IDS } from '../src/clis';
import { chatArgs, chatCommand, CHAT_USAGE } from '../src/cli/chat-command';
import { run } from '../src/cli/run';
import { UsageError } from '../src/cli/usage-error';
import { CHAT_COMMANDS } from '../src/terminal/chat-line';

/*
 * The chat command's line (its terminal is driven for real in e2e/test/chat.spec.ts): its options
 * checked before anything starts, and a refusal to run without a terminal.
 */

function io(tty = false) {
  const stdin = Object.assign(new PassThrough(), { isTTY: tty });
  const stdout = Object.assign(new PassThrough(), { isTTY: tty });
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  return { io: { stdin, stdout, stderr }, out: () => out, err: () => err };
}

describe('chat arguments', () => {
  it('--provider, --model, --resume, --cwd (as --name value or --name=value); none at all', () => {
    expect(chatArgs([])).toEqual({ provider: undefined });
    expect(chatArgs(['--provider', 'codex', '--model=gpt-6-luna', '--resume', 'codex:0199', '--cwd', __dirname])).toEqual({
      provider: 'codex',
      model: 'gpt-6-luna',
      resume: 'codex:0199',
      cwd: __dirname,
    });
    expect(chatArgs(['-h'])).toBe('help');
  });

  it.each([
    [['--provider', 'amp'], `unknown provider "amp": chat takes one of ${SESSION_CLI_IDS.join(', ')}`],
    [['Say hello.'], 'chat takes no prompt: type it at the prompt'],
    [['--format', 'pretty'], 'unknown option of chat: --format'],
    [['--model'], '--model needs a value'],
    [['--model', '--yolo'], 'model must not start with "-"'],
    [['--cwd', '/no/such/dir'], '--cwd /no/such/dir: no such directory'],
  ])('%j: %s', (argv, message) => {
    expect(() => chatArgs(argv)).toThrow(UsageError);
    expect(() => chatArgs(argv)).toThrow(message);
  });
});

describe('the chat command', () => {
  it('run dispatches it: --help prints its usage, exit 0', async () => {
    const t = io();
    expect(await run(['chat', '--help'], t.io)).toBe(0);
    expect(t.out()).toBe(CHAT_USAGE);
  });

  it('a usage error: exit 2, the message and the usage on stderr, before anything starts', async () => {
    const t = io(true);
    expect(await chatCommand(['--resume', 'abc'], t.io)).toBe(2);
    expect(t.err()).toContain('--resume takes <cli>:<session id>');
    const u = io(true);
    expect(await chatCommand(['--bogus'], u.io)).toBe(2);
    expect(u.err()).toBe(`cli-subprocess-core: unknown option of chat: --bogus\n\n${CHAT_USAGE}`);
  });

  it('without a terminal: exit 2, pointing at the session command', async () => {
    const t = io(false);
    expect(await chatCommand(['--provider', 'claude'], t.io)).toBe(2);
    expect(t.err()).toBe('cli-subprocess-core: chat needs a terminal (stdin and stdout); in a pipe, use the session command\n');
    expect(t.out()).toBe('');
  });
});

describe('docs/chat.md', () => {
  it('shows the captured Claude Code chat as docs/chat-screens/claude.txt holds it, and every slash command', () => {
    const page = readFileSync(join(__dirname, '..', 'docs', 'chat.md'), 'utf8');
    const screen = readFileSync(join(__dirname, '..', 'docs', 'chat-screens', 'claude.txt'), 'utf8');
    expect(page).toContain(`\`\`\`text\n${screen}\`\`\``);
    for (const name of Object.keys(CHAT_COMMANDS)) expect(page).toContain(`| \`/${name}`);
  });
});
