import { PassThrough } from 'node:stream';
import { stripVTControlCharacters } from 'node:util';
import { ChatScreen } from '../../src/terminal/chat-screen';
import { palette } from '../../src/terminal/style';

/*
 * The chat's terminal over a stand-in for one (a stream that says it is a TTY): lines read with
 * their editing keys, the keys of a turn read raw. The real terminal is driven in e2e/test/chat.spec.ts.
 */

function terminal() {
  const raw: boolean[] = [];
  const input = Object.assign(new PassThrough(), { isTTY: true, setRawMode: (mode: boolean) => raw.push(mode) });
  const output = Object.assign(new PassThrough(), { isTTY: true, columns: 80 });
  let written = '';
  output.on('data', (chunk: Buffer) => (written += chunk.toString()));
  const screen = new ChatScreen(input, output, palette(false), ['/model', '/cost']);
  return { screen, input, raw, written: () => stripVTControlCharacters(written) };
}

const answers = (key: string) => ({ y: 'yes', n: 'no' })[key] ?? null;

describe('ChatScreen', () => {
  it('reads a line with its editing keys; Ctrl-D on an empty line is the end; Ctrl-C on one is an interrupt', async () => {
    const t = terminal();
    let read = t.screen.readLine('› ');
    t.input.write('Say hell\u007f\u007fllo.\r');
    expect(await read).toEqual({ kind: 'line', text: 'Say hello.' });
    read = t.screen.readLine('› ');
    // Ctrl-C on a line with text clears it; the line typed after is read.
    t.input.write('oops\u0003again\r');
    expect(await read).toEqual({ kind: 'line', text: 'again' });
    read = t.screen.readLine('› ');
    t.input.write('\u0003');
    expect(await read).toEqual({ kind: 'interrupt' });
    read = t.screen.readLine('› ');
    t.input.write('\u0004');
    expect(await read).toEqual({ kind: 'eof' });
  });

  it('keeps the lines read as history (↑)', async () => {
    const t = terminal();
    let read = t.screen.readLine('› ');
    t.input.write('first\r');
    await read;
    read = t.screen.readLine('› ');
    t.input.write('\u001b[A\r');
    expect(await read).toEqual({ kind: 'line', text: 'first' });
  });

  it('during a turn: a question waits for a key it takes, others are ignored; Ctrl-C interrupts', async () => {
    const t = terminal();
    const ctrlCs: number[] = [];
    t.screen.startTurn(() => ctrlCs.push(1), 'working');
    const asked = t.screen.askKey('Allow?', answers);
    t.input.write('x');
    t.input.write('y');
    expect(await asked).toBe('y');
    expect(t.written()).toContain('Allow? yes\n');
    const again = t.screen.askKey('Allow?', answers);
    t.input.write('\u0003');
    expect(await again).toBeNull();
    expect(ctrlCs).toHaveLength(1);
    // Without a question, Ctrl-C still reaches the turn.
    t.input.write('\u0003');
    expect(ctrlCs).toHaveLength(2);
    t.screen.endTurn();
    expect(t.raw).toEqual([true, false]);
    // A question asked between turns has no key to wait for.
    expect(await t.screen.askKey('Allow?', answers)).toBeNull();
  });

  it('a question withdrawn ends with its word; the turn ending ends a question too', async () => {
    const t = terminal();
    t.screen.startTurn(() => undefined, 'working');
    const asked = t.screen.askKey('Allow?', answers);
    t.screen.withdrawQuestion('(no longer asked)');
    expect(await asked).toBeNull();
    expect(t.written()).toContain('Allow? (no longer asked)\n');
    const pending = t.screen.askKey('Allow?', answers);
    t.screen.endTurn();
    expect(await pending).toBeNull();
  });

  it('writes above the status line, which comes back under what was written', () => {
    const t = terminal();
    t.screen.startTurn(() => undefined, 'working · Ctrl-C interrupts');
    t.screen.line('● $ ls');
    t.screen.endTurn();
    expect(t.written()).toMatch(/^\r… working · Ctrl-C interrupts · \d+ s\r● \$ ls\n\r… working · Ctrl-C interrupts · \d+ s\r$/);
  });
});
