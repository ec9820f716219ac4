import { cpSync, mkdirSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/*
 * A throwaway HOME holding the real stored sessions of every pinned CLI (test/fixtures/history/,
 * captured from the real CLIs by e2e/capture/history.ts), each where its CLI keeps it when no
 * override variable is set (docs/history.md). OpenCode and Kilo keep every session in one database:
 * one scenario's database each.
 */

const FIXTURES = join(__dirname, '..', 'fixtures', 'history');

/** Each CLI's store under HOME, and which of the captured folder goes there (default: the whole folder). */
const STORES: readonly { cli: string; home: string; from?: string; scenarios?: readonly string[] }[] = [
  { cli: 'claude', home: '.claude' },
  { cli: 'codex', home: '.codex' },
  { cli: 'gemini', home: '.gemini', from: '.gemini' },
  { cli: 'qwen', home: '.qwen' },
  { cli: 'copilot', home: '.copilot' },
  { cli: 'opencode', home: '.local/share/opencode', scenarios: ['tool'] },
  { cli: 'kilo', home: '.local/share/kilo', scenarios: ['two-turns'] },
  { cli: 'pi', home: '.pi/agent' },
  { cli: 'cline', home: '.cline/data' },
];

/** The CLIs laid out in a fixture HOME. */
export const FIXTURE_CLIS = STORES.map((store) => store.cli);

/** A new temporary HOME with every CLI's captured stores in place (the caller removes it). */
export function fixtureHome(): string {
  const home = mkdtempSync(join(tmpdir(), 'usage-home-'));
  for (const store of STORES) {
    const scenarios = store.scenarios ?? readdirSync(join(FIXTURES, store.cli));
    for (const scenario of scenarios) {
      const target = join(home, store.home);
      mkdirSync(target, { recursive: true });
      cpSync(join(FIXTURES, store.cli, scenario, store.from ?? ''), target, { recursive: true });
    }
  }
  return home;
}
