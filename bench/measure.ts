/** What every bench here measures with. */

/**
 * CPU time (user + system) of this process in ns: unlike wall-clock time it does not
 * count the moments another process had the core, so runs on a busy machine stay comparable.
 */
export function cpuNs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) * 1000;
}

export const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** A full garbage collection (`node --expose-gc`, as `npm run bench` runs the benches). */
export function gc(): void {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (!collect) throw new Error('run with node --expose-gc (npm run bench does)');
  collect();
}
