import { processSource, useProcessSource } from '../../src/runner/process-table';

/*
 * The runner's tests (run.spec.ts) once more, with the processes read from `ps` instead of /proc:
 * the path taken on macOS, where there is no /proc. The stops (a CLI that ignores SIGTERM and its
 * setsid child, a process left in the group, a timeout) must end every process the same way.
 */
useProcessSource('ps');

describe('the process source', () => {
  it('is ps', () => {
    expect(processSource()?.name).toBe('ps');
  });
});

require('./run.spec');
