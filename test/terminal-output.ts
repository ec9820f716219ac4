import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';

/** A stream that says it is a terminal of `columns` columns (or a pipe: `columns` undefined), and what was written to it. */
export function output(columns?: number) {
  const stream = new PassThrough();
  if (columns !== undefined) Object.assign(stream, { isTTY: true, columns });
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  return { stream, text: () => text };
}

/** The modules a fresh process has loaded once it required the package root and the command line's `run` (its stderr too). */
export function modulesOfRootAndRun(): { loaded: string[]; stderr: string } {
  const script = `
      require('./src');
      require('./src/cli/run');
      console.log(JSON.stringify(Object.keys(require.cache)));`;
  const root = join(__dirname, '..');
  const result = spawnSync(process.execPath, ['-r', 'ts-node/register/transpile-only', '-e', script], { cwd: root, encoding: 'utf8' });
  return { loaded: result.stderr === '' ? (JSON.parse(result.stdout) as string[]) : [], stderr: result.stderr };
}
