import { existsSync } from 'node:fs';
import { cliPath, type CliName } from '../scripted/setup';

/** The real-CLI suite cannot run without the pinned CLIs: fail loudly rather than skip. */
export default function globalSetup(): void {
  const missing = (['claude', 'codex', 'gemini'] as CliName[]).filter((name) => !existsSync(cliPath(name)));
  if (missing.length > 0) {
    throw new Error(`The real-CLI suite needs the pinned CLIs (missing: ${missing.join(', ')} in e2e/node_modules/.bin); run: npm ci --prefix e2e`);
  }
}
