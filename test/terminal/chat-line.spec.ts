import { CHAT_COMMANDS, chatHelp, parseChatLine } from '../../src/terminal/chat-line';

describe('parseChatLine: what a line typed at the chat prompt asks for', () => {
  it.each([
    ['', { kind: 'empty' }],
    ['   ', { kind: 'empty' }],
    ['Say hello.', { kind: 'prompt', text: 'Say hello.' }],
    ['  Fix the bug in src/a.ts  ', { kind: 'prompt', text: 'Fix the bug in src/a.ts' }],
    ['//etc/hosts: what is it?', { kind: 'prompt', text: '/etc/hosts: what is it?' }],
    ['/model', { kind: 'command', name: 'model', arg: null }],
    ['/model   sonnet ', { kind: 'command', name: 'model', arg: 'sonnet' }],
    ['/cli codex', { kind: 'command', name: 'cli', arg: 'codex' }],
    ['/cost', { kind: 'command', name: 'cost', arg: null }],
    ['/new', { kind: 'command', name: 'new', arg: null }],
    ['/exit', { kind: 'command', name: 'exit', arg: null }],
    ['/help', { kind: 'command', name: 'help', arg: null }],
  ])('%j → %j', (line, expected) => {
    expect(parseChatLine(line)).toEqual(expected);
  });

  it.each([
    ['/usr/bin is what?', 'unknown command /usr/bin: /help lists them (start a prompt with // to begin it with /)'],
    ['/', 'unknown command /: /help lists them (start a prompt with // to begin it with /)'],
    ['/toString', 'unknown command /toString: /help lists them (start a prompt with // to begin it with /)'],
    ['/cost now', '/cost takes no argument'],
    ['/exit please', '/exit takes no argument'],
    ['/model gpt 5', '/model takes one M, without spaces'],
  ])('%j is a mistake: %s', (line, message) => {
    expect(parseChatLine(line)).toEqual({ kind: 'mistake', message });
  });

  it('/help lists every command once, and the keys', () => {
    const help = chatHelp();
    for (const name of Object.keys(CHAT_COMMANDS)) expect(help.filter((line) => line.trimStart().startsWith(`/${name}`))).toHaveLength(1);
    expect(help.join('\n')).toContain('Ctrl-C interrupts the turn (twice: leave) · Ctrl-D leaves');
    expect(help.join('\n')).toContain('y allow · n deny · a always');
  });
});
