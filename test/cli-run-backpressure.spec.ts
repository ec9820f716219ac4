import 'reflect-metadata';
import { EventEmitter } from 'node:events';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { runCommand } from '../src/cli/run-command';
import { pidFrom, processGone } from './process-gone';

/** A stdout whose reader takes each chunk only when the test says so (`release`): always "full". */
class StalledOutput extends Writable {
  readonly writes: string[] = [];
  private pending: (() => void) | undefined;

  constructor() {
    super({ highWaterMark: 1 });
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    this.writes.push(chunk.toString('utf8'));
    this.pending = callback;
  }

  /** The reader takes the chunk it holds. */
  release(): void {
    const callback = this.pending;
    this.pending = undefined;
    callback?.();
  }
}

let scratch: string;
beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'cli-run-backpressure-'));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('cli-subprocess-core run: stdout backpressure', () => {
  it('writes the next line only once the reader has taken the last one, even after the CLI is done', async () => {
    const pidFile = join(scratch, 'replay.pid');
    const stdout = new StalledOutput();
    const io = { stdin: new PassThrough(), stdout, stderr: new PassThrough() };
    const env = { REPLAY_FILE: join(__dirname, 'fixtures', 'providers', 'claude', 'captured-plain.jsonl'), REPLAY_PID_FILE: pidFile };
    let code: number | undefined;
    const running = runCommand(
      { provider: 'claude', prompt: 'Say hello.', executable: join(__dirname, 'fixtures', 'replay-cli.js'), env },
      io,
      new EventEmitter(),
    );
    void running.then((exitCode) => (code = exitCode));

    // The replay prints its four lines and exits; all of them reach the runner while the reader holds the first.
    while (!existsSync(pidFile)) await sleep(20);
    await processGone(pidFrom(pidFile));
    for (let turn = 0; turn < 50; turn++) await nextTurn();
    expect(stdout.writes).toHaveLength(1);
    expect(code).toBeUndefined();

    while (code === undefined) {
      stdout.release();
      await nextTurn();
    }
    expect(code).toBe(0);
    expect(stdout.writes.map((line) => JSON.parse(line).kind)).toEqual(['run_started', 'assistant_message', 'cost_update', 'result']);
  });
});
