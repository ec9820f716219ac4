import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { run } from '../src/cli/run';

const line = readFileSync(join(__dirname, '../examples/valid.jsonl'), 'utf8').split('\n')[0];

/** A writable stream that keeps what is written to it. */
function sink() {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return { stream, text: () => text };
}

// The progress line only appears on a terminal, which a child process in a test does not
// have, so these tests run the CLI in process with a progress stream of their own.
describe('cli-subprocess-core validate progress', () => {
  it('redraws one progress line in place and clears it before the summary', async () => {
    const out = sink();
    const err = sink();
    const progress = sink();
    const stdin = Readable.from([`${line}\n`.repeat(3000)]);
    const code = await run(['validate', '-'], {
      stdin,
      stdout: out.stream,
      stderr: err.stream,
      progress: progress.stream,
      progressEveryMs: 0,
    });
    expect(code).toBe(0);
    expect(progress.text()).toBe('\r\x1b[K<stdin>: 1,024 lines, 0 invalid…\r\x1b[K<stdin>: 2,048 lines, 0 invalid…\r\x1b[K');
    expect(out.text()).toContain('<stdin>: 3000 lines checked, 3000 valid, 0 invalid');
    expect(err.text()).toBe('');
  });

  it('clears the progress line before an error is printed on the same terminal', async () => {
    const terminal = sink(); // stdout and the progress line share one screen
    const stdin = Readable.from([`${line}\n`.repeat(1500), '{"kind":"nope"}\n']);
    const code = await run(['validate', '-'], {
      stdin,
      stdout: terminal.stream,
      stderr: terminal.stream,
      progress: terminal.stream,
      progressEveryMs: 0,
    });
    expect(code).toBe(1);
    expect(terminal.text()).toMatch(/^\r\x1b\[K<stdin>: 1,024 lines, 0 invalid…\r\x1b\[K<stdin>:1501: kind: /);
  });

  it('stays silent without a progress stream (stderr is not a terminal)', async () => {
    const out = sink();
    const err = sink();
    const stdin = Readable.from([`${line}\n`.repeat(2048)]);
    expect(await run(['validate', '-'], { stdin, stdout: out.stream, stderr: err.stream, progressEveryMs: 0 })).toBe(0);
    expect(err.text()).toBe('');
    expect(out.text()).not.toContain('\r');
  });
});
