import 'reflect-metadata';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { stripVTControlCharacters } from 'node:util';
import stringWidth from 'string-width';
import type { AnyEvent } from '../../src/events/event';
import type { CliIo } from '../../src/cli/io';
import { run } from '../../src/cli/run';
import { listCliSessions, readCliSession } from '../../src/history';
import { FIXTURE_CLIS, fixtureHome } from './fixture-home';
import { output } from '../terminal-output';

/*
 * `history` and `history show` over a throwaway HOME holding the real stored sessions of every
 * pinned CLI: the list (newest first, `<cli>:<id>`, turns, usage), its filters, a table that follows
 * the terminal's width and colour settings, and one session as a transcript or as events.
 */

jest.setTimeout(60_000);

async function cli(argv: string[], env: NodeJS.ProcessEnv = {}, columns?: number) {
  const stdout = output(columns);
  const stderr = output();
  const io: CliIo = { stdin: new PassThrough(), stdout: stdout.stream, stderr: stderr.stream, env: { HOME: home, TZ: 'UTC', ...env } };
  const code = await run(argv, io);
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

interface Listed {
  id: string;
  provider: string;
  session_id: string;
  cwd: string | null;
  title: string | null;
  updated_at: string | null;
  turns: number;
  total_tokens: number;
  cost_usd: number | null;
  path: string;
}

async function listed(argv: string[] = []): Promise<Listed[]> {
  const { code, stdout, stderr } = await cli(['history', '--json', '--no-cache', ...argv]);
  expect([code, stderr]).toEqual([0, '']);
  return (JSON.parse(stdout) as { sessions: Listed[] }).sessions;
}

let home: string;
beforeAll(() => {
  home = fixtureHome();
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe('history', () => {
  it('lists every CLI\u2019s stored sessions, newest first, as <cli>:<session id>, with turns and usage', async () => {
    const sessions = await listed();
    const refs = await listCliSessions({ env: { HOME: home } });
    expect(sessions.map((session) => session.id)).toEqual(refs.map((ref) => `${ref.provider}:${ref.id}`));
    expect(new Set(sessions.map((session) => session.provider))).toEqual(new Set(FIXTURE_CLIS));
    const times = sessions.map((session) => session.updated_at ?? '');
    expect([...times].sort().reverse()).toEqual(times);
    // Each capture: a tool session of one prompt (Gemini's resumed-next-minute one has a second), and a session of two turns.
    const tool = sessions.filter((each) => each.title === 'Run echo hello-from-tool.');
    expect(tool.filter((session) => session.turns === 1).length).toBe(tool.length - 1);
    for (const session of sessions.filter((each) => each.title === 'Say one.')) expect(session.turns).toBe(2);
    for (const session of sessions.filter((each) => each.provider !== 'gemini')) expect(session.total_tokens).toBeGreaterThan(0);
  });

  it('--provider, --cwd, --since and --until choose the sessions', async () => {
    const all = await listed();
    const codex = await listed(['--provider', 'codex']);
    expect(codex.map((session) => session.id)).toEqual(all.filter((session) => session.provider === 'codex').map((session) => session.id));
    expect(codex.length).toBe(2);
    const one = all[0];
    expect((await listed(['--cwd', one.cwd as string])).map((session) => session.id)).toEqual([one.id]);
    expect(await listed(['--since', '2026-12-08'])).toEqual([]);
    expect(await listed(['--until', '2026-12-06'])).toEqual([]);
    expect(await listed(['--since', '2026-12-07', '--until', '2026-12-07'])).toEqual(all);
  });

  it('prints a table for a person: within the terminal\u2019s width, colour only when asked', async () => {
    const sessions = await listed();
    for (const columns of [60, 80, 160]) {
      const { code, stdout } = await cli(['history', '--no-cache'], { NO_COLOR: '1' }, columns);
      expect(code).toBe(0);
      expect(stdout).not.toMatch(/\u001b/);
      for (const line of stdout.trimEnd().split('\n')) expect(stringWidth(line)).toBeLessThanOrEqual(columns);
      // The ids are never cut: they are what history show and chat --resume take.
      for (const session of sessions) expect(stdout).toContain(session.id);
    }
    const wide = await cli(['history', '--no-cache'], { NO_COLOR: '1' }, 160);
    expect(wide.stdout).toContain('Run echo hello-from-tool.');
    expect(wide.stdout).toMatch(/^ID\s+When\s+Turns\s+Tokens\s+Cost$/m);
    const colored = await cli(['history', '--no-cache'], { FORCE_COLOR: '1' }, 100);
    expect(colored.stdout).toMatch(/\u001b\[/);
    expect(stripVTControlCharacters(colored.stdout)).toBe((await cli(['history', '--no-cache'], { NO_COLOR: '1' }, 100)).stdout);
  });

  it('prints no control character a stored prompt holds (an escape sequence must not drive the terminal)', async () => {
    const [claude] = (await listed(['--provider', 'claude'])).filter((session) => session.title === 'Run echo hello-from-tool.');
    const text = readFileSync(claude.path, 'utf8');
    writeFileSync(claude.path, text.replaceAll('Run echo hello-from-tool.', 'Run echo \\u001b]0;owned\\u0007hello.'));
    try {
      const { stdout } = await cli(['history', '--provider', 'claude', '--no-cache'], { NO_COLOR: '1' }, 120);
      expect(stdout).toContain(']0;owned hello.');
      expect(stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
    } finally {
      writeFileSync(claude.path, text);
    }
  });

  it('takes no argument but show, and says so', async () => {
    const { code, stderr } = await cli(['history', 'list']);
    expect(code).toBe(2);
    expect(stderr).toContain('history takes no argument');
  });
});

describe('history show', () => {
  it('--json: the session\u2019s events, as readCliSession reads them', async () => {
    for (const session of (await listed()).filter(
      (each, index, all) => all.findIndex((other) => other.provider === each.provider) === index,
    )) {
      const { code, stdout, stderr } = await cli(['history', 'show', session.id, '--json']);
      expect([session.id, code, stderr]).toEqual([session.id, 0, '']);
      const [ref] = (await listCliSessions({ provider: session.provider as never, env: { HOME: home } })).filter(
        (each) => each.id === session.session_id,
      );
      const events: AnyEvent[] = [];
      for await (const event of readCliSession(ref, { keepRaw: 'all' })) events.push(event);
      const shown = stdout
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as { kind: string; payload: unknown });
      expect(shown.map((event) => event.kind)).toEqual(events.map((event) => event.kind));
      expect(shown.map((event) => event.payload)).toEqual(events.map((event) => JSON.parse(JSON.stringify(event.payload))));
    }
  });

  it('on a terminal: the transcript (the prompt, the tool call and its output, the answer)', async () => {
    const [tool] = (await listed(['--provider', 'codex'])).filter((session) => session.title === 'Run echo hello-from-tool.');
    const { code, stdout } = await cli(['history', 'show', tool.id], { NO_COLOR: '1' }, 80);
    expect(code).toBe(0);
    expect(stdout).toContain('› Run echo hello-from-tool.');
    expect(stdout).toContain('echo hello-from-tool');
    expect(stdout).toContain('hello-from-tool');
    expect(stdout).not.toMatch(/^\{"/m);
    const piped = await cli(['history', 'show', tool.id]);
    expect(piped.stdout.split('\n')[0]).toMatch(/^\{"/);
  });

  it('an id no CLI stored: exit 1, and what to do', async () => {
    const { code, stderr } = await cli(['history', 'show', 'claude:00000000-0000-0000-0000-000000000000']);
    expect(code).toBe(1);
    expect(stderr).toContain('no stored session claude:00000000-0000-0000-0000-000000000000');
  });
});
