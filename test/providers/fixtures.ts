import 'reflect-metadata';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createDecoder, type ExitInfo } from '../../src/decode/decoder';
import { PROVIDERS, type ProviderId } from '../../src/decode/provider-id';

/*
 * Fixture layout, one folder per provider under test/fixtures/providers/<provider>/:
 *   <name>.jsonl          the CLI's stdout, line for line (public recordings or our own captures)
 *   <name>.exit.json      optional {"code":0,"signal":null}: how the process ended (captures know it)
 *   <name>.events.jsonl   the expected normalized events (golden), one per line, without `id`
 *   SOURCES.md            where each fixture came from
 * Goldens are decoded with a fixed clock and keepRaw 'unmapped', so they stay readable.
 */

export const FIXTURES_DIR = join(__dirname, '..', 'fixtures', 'providers');
export const FIXTURE_CLOCK = (): Date => new Date('2026-01-01T00:00:00.000Z');

/**
 * The CLIs whose lines copy another's format: where no field tells them apart (for Kilo Code, none
 * does), `auto` names the CLI they copy. Amp prints Claude Code's stream-json, Kilo OpenCode's lines.
 */
export const COPIES: Readonly<Record<string, string>> = { amp: 'claude', kilo: 'opencode' };

/** Whether `auto` naming `detected` for a fixture of `provider` is the copy rule above. */
export const detectedAsCopy = (provider: string, detected: string | null | undefined): boolean =>
  COPIES[provider] !== undefined && detected === COPIES[provider];

/** One native transcript and where its golden lives. */
export interface Fixture {
  provider: ProviderId;
  name: string;
  nativePath: string;
  goldenPath: string;
  exit: ExitInfo | undefined;
}

/** Every fixture transcript of every provider (or of one). */
export function fixtures(only?: ProviderId): Fixture[] {
  const found: Fixture[] = [];
  for (const provider of PROVIDERS) {
    if (only && provider !== only) continue;
    const dir = join(FIXTURES_DIR, provider);
    if (!existsSync(dir)) continue;
    for (const file of readdirSync(dir).sort()) {
      if (!file.endsWith('.jsonl') || file.endsWith('.events.jsonl')) continue;
      const name = file.slice(0, -'.jsonl'.length);
      const exitPath = join(dir, `${name}.exit.json`);
      found.push({
        provider,
        name,
        nativePath: join(dir, file),
        goldenPath: join(dir, `${name}.events.jsonl`),
        exit: existsSync(exitPath) ? (JSON.parse(readFileSync(exitPath, 'utf8')) as ExitInfo) : undefined,
      });
    }
  }
  return found;
}

/** The native lines of a fixture (split on \n, a trailing \r dropped as the CLIs' pipes would). */
export function nativeLines(fixture: Fixture): string[] {
  const text = readFileSync(fixture.nativePath, 'utf8');
  const lines = text.split('\n').map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Decodes a fixture the way goldens are written: fixed clock, keepRaw 'unmapped', `id` removed. */
export function decodeFixture(fixture: Fixture): Record<string, unknown>[] {
  const decoder = createDecoder(fixture.provider, { clock: FIXTURE_CLOCK, keepRaw: 'unmapped' });
  const events = nativeLines(fixture).flatMap((line) => decoder.push(line));
  events.push(...decoder.end(fixture.exit));
  return events.map((event) => {
    const { id: _id, ...rest } = JSON.parse(JSON.stringify(event)) as Record<string, unknown>;
    return rest;
  });
}

/** The golden events of a fixture, or null when it has none yet. */
export function readGolden(fixture: Fixture): Record<string, unknown>[] | null {
  if (!existsSync(fixture.goldenPath)) return null;
  return readFileSync(fixture.goldenPath, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
