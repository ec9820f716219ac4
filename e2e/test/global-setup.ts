import { existsSync } from 'node:fs';
import { cliPath, E2E_BIN, type CliName } from '../scripted/setup';

/** The pinned CLIs missing from `bin`. */
export function missingClis(bin: string = E2E_BIN): CliName[] {
  return (['claude', 'codex', 'gemini', 'opencode', 'qwen', 'copilot', 'pi', 'kilo'] as CliName[]).filter(
    (name) => !existsSync(cliPath(name, bin)),
  );
}

/** The real-CLI suite cannot run without the pinned CLIs: fail loudly rather than skip. */
export default function globalSetup(): void {
  const missing = missingClis();
  if (missing.length > 0) {
    throw new Error(
      `The real-CLI suite needs the pinned CLIs (missing: ${missing.join(', ')} in ${E2E_BIN}); run: npm install --prefix e2e`,
    );
  }
}
