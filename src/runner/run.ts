import type { Run, RunOptions } from './types';

/** Starts a CLI run (implementation in progress). */
export function startRun(options: RunOptions): Run {
  void options;
  throw new Error('startRun: not implemented yet');
}
