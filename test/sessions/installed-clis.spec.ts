import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SESSION_CLI_IDS } from '../../src/clis';
import { installedClis } from '../../src/sessions/installed-clis';

describe('installedClis', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'installed-clis-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("the registry's session CLIs whose executable is on PATH, in the registry's order (not PATH's)", () => {
    for (const name of ['codex', 'claude', 'amp']) writeFileSync(join(dir, name), '#!/bin/sh\n', { mode: 0o755 });
    // Not executable: not found.
    writeFileSync(join(dir, 'gemini'), '', { mode: 0o644 });
    expect(installedClis(dir)).toEqual(['claude', 'codex']);
    expect(installedClis('')).toEqual([]);
    expect(SESSION_CLI_IDS.slice(0, 2)).toEqual(['claude', 'codex']);
  });
});
