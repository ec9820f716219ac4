import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/*
 * A HOME of Claude Code and Codex history for the usage comparison (usage-ccusage.spec.ts, the
 * script scripts/usage-vs-ccusage.ts and the 1 GB bench bench/usage-vs-ccusage.ts): copies of the
 * sessions the pinned CLIs stored themselves (test/fixtures/history and test/fixtures/usage-vs-ccusage,
 * captured by e2e/capture/history.ts), each with new ids and its times moved, written where each
 * CLI keeps them under HOME. A copy is the
 * captured text with strings replaced, never JSON parsed and printed again: the lines keep the
 * CLIs' own compact form, which ccusage needs (it picks its lines by substrings such as
 * `"type":"assistant"`).
 */

const FIXTURES = join(__dirname, '..', '..', 'test', 'fixtures');

/** The CLIs both tools read. */
export type UsageCli = 'claude' | 'codex';

/** One captured session file and the CLI that wrote it. */
export interface CapturedSession {
  cli: UsageCli;
  /** The file, under test/fixtures/<folder>/<cli>/<scenario>/. */
  path: string;
  /** Its text, read once. */
  text: string;
}

/** The one session file of a captured scenario: `fixture` is its folder under test/fixtures (`usage-vs-ccusage/claude/sonnet`). */
export function capturedSession(cli: UsageCli, fixture: string): CapturedSession {
  const root = join(FIXTURES, fixture);
  const files = walk(root).filter((path) => path.endsWith('.jsonl'));
  if (files.length !== 1) throw new Error(`${root}: expected one session file, found ${files.length}`);
  return { cli, path: files[0], text: readFileSync(files[0], 'utf8') };
}

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? walk(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const ISO_TIME = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z/g;
// Claude Code's message ids (what it and ccusage count a message once by) and request ids.
const MESSAGE_ID = /"(msg|req)_([A-Za-z0-9]+)"/g;
// Codex's rollout file name: rollout-YYYY-MM-DDTHH-MM-SS-<thread id>.jsonl.
const ROLLOUT = /^rollout-(\d{4})-(\d{2})-(\d{2})T(\d{2})-(\d{2})-(\d{2})-/;

/** A stable new UUID for `uuid` in copy `tag`: the same in every line of the copy, another in every copy. */
function newUuid(uuid: string, tag: string): string {
  const hex = createHash('sha1').update(`${tag}:${uuid}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** The earliest time in a session's text (a session is placed by it). */
export function sessionStart(session: CapturedSession): Date {
  let first = Infinity;
  for (const [time] of session.text.matchAll(ISO_TIME)) first = Math.min(first, Date.parse(time));
  if (!Number.isFinite(first)) throw new Error(`${session.path}: no time in it`);
  return new Date(first);
}

/**
 * Writes a copy of `session` into `home` (Claude Code: `.claude/projects/<project>/<id>.jsonl`;
 * Codex: `.codex/sessions/YYYY/MM/DD/rollout-….jsonl`) with every UUID, message and request id
 * replaced (stable for `tag`, another for another tag) and every time moved so that it starts at
 * `start`; answers the file written.
 */
export function writeSessionCopy(session: CapturedSession, home: string, tag: string, start: Date): string {
  const shiftMs = start.getTime() - sessionStart(session).getTime();
  const text = session.text
    .replace(UUID, (uuid) => newUuid(uuid, tag))
    .replace(MESSAGE_ID, (_whole, prefix: string, id: string) => `"${prefix}_${id}${tag.replace(/\W/g, '')}"`)
    .replace(ISO_TIME, (time) => new Date(Date.parse(time) + shiftMs).toISOString());
  const name = basename(session.path).replace(UUID, (uuid) => newUuid(uuid, tag));
  let path: string;
  if (session.cli === 'claude') {
    // The project folder (the cwd's slug) as captured: a copy is another session of the same project.
    const project = basename(dirname(session.path));
    path = join(home, '.claude', 'projects', project, name);
  } else {
    const match = ROLLOUT.exec(name);
    if (!match) throw new Error(`${session.path}: not a Codex rollout file name`);
    const [, year, month, day, hour, minute, second] = match;
    const moved = new Date(Date.parse(`${year}-${month}-${day}T${hour}:${minute}:${second}Z`) + shiftMs).toISOString();
    const stamp = `${moved.slice(0, 10)}T${moved.slice(11, 19).replace(/:/g, '-')}`;
    path = join(home, '.codex', 'sessions', ...moved.slice(0, 10).split('-'), name.replace(ROLLOUT, `rollout-${stamp}-`));
  }
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return path;
}

/** A session placed in the comparison's HOME: which capture (its folder under test/fixtures), and when it starts. */
export interface PlacedSession {
  cli: UsageCli;
  fixture: string;
  start: string;
}

/** The captures copied: Claude Code's with claude-sonnet-4-5 and with its default, Codex's. */
export const SONNET = 'usage-vs-ccusage/claude/sonnet';
export const OPUS = 'usage-vs-ccusage/claude/opus';
export const CODEX_THINKING = 'usage-vs-ccusage/codex/thinking';
export const CODEX_TOOL = 'history/codex/tool';
export const CODEX_TWO_TURNS = 'history/codex/two-turns';

/**
 * The comparison's history: Claude Code's sessions with `claude-sonnet-4-5` (which ccusage prices)
 * and with its default `claude-opus-5-5` (which it does not), Codex's with `gpt-5.5` (one with
 * reasoning), over five days: one of Claude Code alone, one of Codex alone, one of both, one with the
 * model ccusage has no price for, and one session late in the UTC evening, which is the next day
 * east of UTC.
 */
export const COMPARISON_SESSIONS: readonly PlacedSession[] = [
  { cli: 'claude', fixture: SONNET, start: '2026-11-02T09:00:00.000Z' },
  { cli: 'claude', fixture: SONNET, start: '2026-11-02T10:30:00.000Z' },
  { cli: 'codex', fixture: CODEX_TOOL, start: '2026-11-03T09:00:00.000Z' },
  { cli: 'codex', fixture: CODEX_THINKING, start: '2026-11-03T11:00:00.000Z' },
  { cli: 'claude', fixture: SONNET, start: '2026-11-04T08:00:00.000Z' },
  { cli: 'codex', fixture: CODEX_TWO_TURNS, start: '2026-11-04T08:30:00.000Z' },
  { cli: 'claude', fixture: OPUS, start: '2026-11-05T09:00:00.000Z' },
  { cli: 'codex', fixture: CODEX_TOOL, start: '2026-11-05T09:30:00.000Z' },
  { cli: 'claude', fixture: SONNET, start: '2026-11-05T23:30:00.000Z' },
];

/** Writes `sessions` into `home` (each copy its own ids); answers the files written. */
export function writeHistory(home: string, sessions: readonly PlacedSession[] = COMPARISON_SESSIONS): string[] {
  const captured = new Map<string, CapturedSession>();
  return sessions.map((placed, index) => {
    if (!captured.has(placed.fixture)) captured.set(placed.fixture, capturedSession(placed.cli, placed.fixture));
    return writeSessionCopy(captured.get(placed.fixture)!, home, `copy${index}`, new Date(placed.start));
  });
}

/** The day (YYYY-MM-DD) of `time` in `timeZone`. */
export function dayIn(time: Date, timeZone: string): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(time);
}
