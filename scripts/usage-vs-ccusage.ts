/**
 * Prints the side-by-side table of docs/usage-vs-ccusage.md: `usage daily --json` of this project
 * (a private build of src/) and the pinned `ccusage daily --json --offline` (npm install --prefix e2e)
 * over the comparison's history (e2e/test/usage-history.ts) in a throwaway HOME, day by day.
 *   npx ts-node --transpile-only scripts/usage-vs-ccusage.ts [TIME_ZONE]   (default Asia/Tokyo)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { privateBuild } from '../test/build-copy';
import { ccusageDaily, compareDays, comparisonTable, reportEnv, usageDaily } from '../e2e/test/usage-compare';
import { writeHistory } from '../e2e/test/usage-history';

async function main(): Promise<void> {
  const timeZone = process.argv[2] ?? 'Asia/Tokyo';
  const build = privateBuild('usage-vs-ccusage');
  const home = mkdtempSync(join(tmpdir(), 'usage-vs-ccusage-'));
  try {
    writeHistory(home);
    const env = reportEnv(home, timeZone);
    const [ours, theirs] = await Promise.all([usageDaily(join(build.dir, 'cli/main.js'), env), ccusageDaily(env)]);
    process.stdout.write(`Days in ${timeZone}.\n\n${comparisonTable(compareDays(ours, theirs))}\n`);
  } finally {
    rmSync(home, { recursive: true, force: true });
    build.remove();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
