import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * This package's version, from its package.json: the first one named `cli-subprocess-core` above
 * this file (two folders up from src/cli, three from dist/cjs/cli); '0' when none is found.
 */
export function packageVersion(from: string = __dirname): string {
  for (let dir = from; ; dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown; version?: unknown };
      if (pkg.name === 'cli-subprocess-core' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // no package.json here, or not JSON: look further up
    }
    if (dirname(dir) === dir) return '0';
  }
}
