import 'reflect-metadata';
import { appendFileSync, existsSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { stripVTControlCharacters } from 'node:util';
import stringWidth from 'string-width';
import type { AnyEvent } from '../../src/events/event';
import type { CliIo } from '../../src/cli/io';
import { run } from '../../src/cli/run';
import { usageCommand } from '../../src/cli/usage-command';
import { listCliSessions, readCliSession, type CliSessionRef } from '../../src/history';
import { UsageTotals, type UsageFigures } from '../../src/providers/usage';
import type { HistoryCli } from '../../src/clis';
import { readStoreUsage } from '../../src/spend/collect-sessions';
import type { PriceTable } from '../../src/spend/price-table';
import type { UsageReportJson } from '../../src/spend/usage-report';
import { FIXTURE_CLIS, fixtureHome } from './fixture-home';
import { output } from '../terminal-output';

/*
 * `usage` over a throwaway HOME holding the real stored sessions of every pinned CLI: its totals
 * against the decoded events' usage added up here with the usage rules, the Claude Code dedupe,
 * computed and reported prices, the cache, the filters.
 */

jest.setTimeout(60_000);

const COUNTS = ['input_tokens', 'output_tokens', 'cache_read_input_tokens', 'cache_write_input_tokens', 'reasoning_output_tokens'] as const;

function ioFor(env: NodeJS.ProcessEnv, columns?: number) {
  const stdout = output(columns);
  const stderr = output();
  const io: CliIo = { stdin: new PassThrough(), stdout: stdout.stream, stderr: stderr.stream, env };
  return { io, stdout: stdout.text, stderr: stderr.text };
}

async function usageJson(home: string, argv: string[], env: NodeJS.ProcessEnv = {}): Promise<UsageReportJson> {
  const { io, stdout, stderr } = ioFor({ HOME: home, TZ: 'UTC', ...env });
  expect(await run(['usage', ...argv, '--json'], io)).toBe(0);
  expect(stderr()).toBe('');
  return JSON.parse(stdout()) as UsageReportJson;
}

async function eventsOf(ref: CliSessionRef): Promise<AnyEvent[]> {
  const events: AnyEvent[] = [];
  for await (const event of readCliSession(ref)) events.push(event);
  return events;
}

/** Each session's usage by the usage rules (`UsageTotals` over its `cost_update` events), summed by CLI. */
async function independentTotals(home: string): Promise<Map<string, Record<(typeof COUNTS)[number], number>>> {
  const byCli = new Map<string, Record<(typeof COUNTS)[number], number>>();
  for (const ref of await listCliSessions({ env: { HOME: home } })) {
    const totals = new UsageTotals();
    for (const event of await eventsOf(ref)) if (event.kind === 'cost_update') totals.add(event.payload);
    const total: UsageFigures | null = totals.total;
    const sum = byCli.get(ref.provider) ?? {
      input_tokens: 0,
      output_tokens: 0,
      cache_read_input_tokens: 0,
      cache_write_input_tokens: 0,
      reasoning_output_tokens: 0,
    };
    for (const key of COUNTS) sum[key] += total?.[key] ?? 0;
    byCli.set(ref.provider, sum);
  }
  return byCli;
}

let home: string;
beforeEach(() => {
  home = fixtureHome();
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

describe('usage over every pinned CLI\u2019s stored sessions', () => {
  it('adds up to the decoded events\u2019 usage, CLI by CLI and in total, for every grouping', async () => {
    const expected = await independentTotals(home);
    // Every CLI laid out has sessions with usage: a CLI left out would fail here, not pass silently.
    expect([...expected.keys()].sort()).toEqual([...FIXTURE_CLIS].sort());
    for (const sum of expected.values()) expect(sum.input_tokens + sum.output_tokens).toBeGreaterThan(0);

    const byCli = await usageJson(home, ['cli', '--no-cache']);
    expect(byCli.rows.map((row) => row.key).sort()).toEqual([...expected.keys()].sort());
    for (const row of byCli.rows) {
      for (const key of COUNTS) expect([row.key, key, row[key]]).toEqual([row.key, key, expected.get(row.key)?.[key]]);
      expect(row.total_tokens).toBe(row.input_tokens + row.output_tokens);
      expect(row.providers).toEqual([row.key]);
    }
    for (const grouping of ['daily', 'monthly', 'session', 'model', 'cli']) {
      const report = await usageJson(home, [grouping, '--no-cache']);
      for (const key of COUNTS) {
        const sum = [...expected.values()].reduce((total, each) => total + each[key], 0);
        expect([grouping, key, report.totals[key]]).toEqual([grouping, key, sum]);
        expect(report.rows.reduce((total, row) => total + row[key], 0)).toBe(sum);
      }
    }
  });

  it('prints the JSON contract: rows with their key, and totals, with exactly these fields', async () => {
    const report = await usageJson(home, ['daily', '--no-cache']);
    const fields = [
      'input_tokens',
      'output_tokens',
      'cache_read_input_tokens',
      'cache_write_input_tokens',
      'reasoning_output_tokens',
      'total_tokens',
      'cost_usd',
      'cost_source',
      'models',
      'providers',
    ];
    expect(Object.keys(report)).toEqual(['rows', 'totals']);
    expect(Object.keys(report.totals)).toEqual(fields);
    // The captures were all made on one day (UTC).
    expect(report.rows.map((row) => row.key)).toEqual(['2026-12-07']);
    expect(Object.keys(report.rows[0])).toEqual(['key', ...fields]);
    expect(report.totals.cost_source).toBe('mixed');
    const sessions = await usageJson(home, ['session', '--no-cache']);
    const refs = await listCliSessions({ env: { HOME: home } });
    expect(sessions.rows.map((row) => row.key).sort()).toEqual(
      refs
        .map((ref) => `${ref.provider}:${ref.id}`)
        .filter((key) => sessions.rows.some((row) => row.key === key))
        .sort(),
    );
    expect(sessions.rows.length).toBeGreaterThanOrEqual(FIXTURE_CLIS.length);
  });

  it('groups days in the local time zone, or --timezone\u2019s', async () => {
    const [claude] = await listCliSessions({ provider: 'claude', env: { HOME: home } });
    // 17:54 UTC on the 7th is the 8th at UTC+14.
    expect(claude.updated_at?.startsWith('2026-12-07T17:5')).toBe(true);
    const kiribati = await usageJson(home, ['daily', '--provider', 'claude', '--no-cache', '--timezone', 'Pacific/Kiritimati']);
    expect(kiribati.rows.map((row) => row.key)).toEqual(['2026-12-08']);
    const byTz = await usageJson(home, ['daily', '--provider', 'claude', '--no-cache'], { TZ: 'Pacific/Kiritimati' });
    expect(byTz.rows.map((row) => row.key)).toEqual(['2026-12-08']);
    const monthly = await usageJson(home, ['monthly', '--provider', 'claude', '--no-cache']);
    expect(monthly.rows.map((row) => row.key)).toEqual(['2026-12']);
  });

  it('--since, --until and --provider choose the entries', async () => {
    const all = await usageJson(home, ['daily', '--no-cache']);
    expect((await usageJson(home, ['daily', '--no-cache', '--since', '2026-12-08'])).rows).toEqual([]);
    expect((await usageJson(home, ['daily', '--no-cache', '--until', '20261206'])).rows).toEqual([]);
    expect(await usageJson(home, ['daily', '--no-cache', '--since', '2026-12-07', '--until', '2026-12-07'])).toEqual(all);
    const codex = await usageJson(home, ['daily', '--no-cache', '--provider', 'codex']);
    expect(codex.totals.providers).toEqual(['codex']);
    expect(codex.totals.total_tokens).toBe(
      (await usageJson(home, ['cli', '--no-cache'])).rows.find((row) => row.key === 'codex')?.total_tokens,
    );
    const { io, stderr } = ioFor({ HOME: home });
    expect(await run(['usage', '--since', 'yesterday'], io)).toBe(2);
    expect(stderr()).toContain('--since takes a date');
  });
});

describe('a running total across midnight', () => {
  it('counts what each update added on its own day: a Codex session\u2019s second total, the next day, adds only its difference', async () => {
    const [tool] = (await listCliSessions({ provider: 'codex', env: { HOME: home } })).filter(
      (ref) => ref.title === 'Run echo hello-from-tool.',
    );
    const lines = readFileSync(tool.path, 'utf8').split('\n');
    const last = lines.map((line, index) => [line, index] as const).filter(([line]) => line.includes('"token_count"'))[1][1];
    const moved = JSON.parse(lines[last]) as { timestamp: string };
    moved.timestamp = '2026-12-08T09:00:00.000Z';
    lines[last] = JSON.stringify(moved);
    writeFileSync(tool.path, lines.join('\n'));

    const updates = (await eventsOf(tool)).filter((event) => event.kind === 'cost_update');
    const [first, second] = updates.map((event) => event.payload);
    expect(second.input_tokens).toBeGreaterThan(first.input_tokens);
    const report = await usageJson(home, ['daily', '--provider', 'codex', '--no-cache']);
    expect(report.rows.map((row) => row.key)).toEqual(['2026-12-07', '2026-12-08']);
    expect(report.rows[1].input_tokens).toBe(second.input_tokens - first.input_tokens);
    expect(report.rows[1].output_tokens).toBe(second.output_tokens - first.output_tokens);
    expect(report.rows[0].input_tokens + report.rows[1].input_tokens).toBe(report.totals.input_tokens);
    expect(report.totals).toEqual((await usageJson(home, ['monthly', '--provider', 'codex', '--no-cache'])).totals);
  });
});

describe('usage with nothing stored, and its help', () => {
  it('says there is no usage, and --json prints empty rows and zero totals', async () => {
    const empty = join(home, 'empty');
    const { io, stdout } = ioFor({ HOME: empty, NO_COLOR: '1' });
    expect(await run(['usage', '--no-cache'], io)).toBe(0);
    expect(stdout()).toContain('No usage found');
    const report = await usageJson(empty, ['monthly', '--no-cache']);
    expect(report.rows).toEqual([]);
    expect(report.totals).toMatchObject({ total_tokens: 0, cost_usd: null, cost_source: null, models: [], providers: [] });
  });

  it('--help prints the command’s own usage; an unknown grouping is a usage error', async () => {
    const help = ioFor({ HOME: home });
    expect(await run(['usage', '--help'], help.io)).toBe(0);
    expect(help.stdout()).toContain('Usage: cli-subprocess-core usage [daily|monthly|session|model|cli]');
    const wrong = ioFor({ HOME: home });
    expect(await run(['usage', 'weekly'], wrong.io)).toBe(2);
    expect(wrong.stderr()).toContain('usage groups by daily, monthly, session, model, cli; got "weekly"');
  });
});

describe('the table', () => {
  it('fits the terminal’s width (columns left out, the key and cost kept), colour only when asked', async () => {
    for (const columns of [50, 80, 140]) {
      const { io, stdout } = ioFor({ HOME: home, TZ: 'UTC', NO_COLOR: '1' }, columns);
      expect(await run(['usage', 'model', '--no-cache'], io)).toBe(0);
      const lines = stdout().trimEnd().split('\n');
      for (const line of lines) expect(stringWidth(line)).toBeLessThanOrEqual(columns);
      expect(lines[0]).toMatch(/^Model\s.*Cost/);
      expect(stdout()).toMatch(/^claude-opus-5-5\s/m);
      expect(stdout()).not.toMatch(/\u001b/);
    }
    const wide = ioFor({ HOME: home, TZ: 'UTC', NO_COLOR: '1' }, 140);
    await run(['usage', 'model', '--no-cache'], wide.io);
    expect(wide.stdout()).toMatch(/^Model\s+Input\s+Output\s+Cache read\s+Cache write\s+Reasoning\s+Total\s+Cost\s+CLIs$/m);
    const colored = ioFor({ HOME: home, TZ: 'UTC', FORCE_COLOR: '1' }, 140);
    await run(['usage', 'model', '--no-cache'], colored.io);
    expect(colored.stdout()).toMatch(/\u001b\[/);
    expect(stripVTControlCharacters(colored.stdout())).toBe(wide.stdout());
  });
});

describe('Claude Code: one transcript line per content block, each with the message\u2019s usage', () => {
  it('counts a message split across lines once, by message id and request id', async () => {
    const before = await usageJson(home, ['cli', '--no-cache', '--provider', 'claude']);
    // Split the tool session's answer as Claude Code writes a message of two blocks: two lines, same message, same usage.
    const projects = join(home, '.claude', 'projects');
    const folder = readdirSync(projects).find((name) => name.includes('1if8cb')) as string;
    const file = join(projects, folder, readdirSync(join(projects, folder))[0]);
    const lines = readFileSync(file, 'utf8').split('\n');
    const at = lines.findIndex((line) => line.includes('"msg_scripted0001"'));
    const line = JSON.parse(lines[at]) as { uuid: string; requestId?: string; message: { content: unknown[] } };
    line.requestId = 'req_split';
    const first = {
      ...line,
      message: { ...line.message, content: [{ type: 'thinking', thinking: 'First the command.', signature: 's' }] },
    };
    const second = { ...line, uuid: `${line.uuid.slice(0, -4)}beef`, parentUuid: line.uuid };
    lines.splice(at, 1, JSON.stringify(first), JSON.stringify(second));
    writeFileSync(file, lines.join('\n'));

    const [ref] = (await listCliSessions({ provider: 'claude', env: { HOME: home } })).filter((each) => each.path === file);
    const events = await eventsOf(ref);
    const updates = events.filter((event) => event.kind === 'cost_update');
    expect(events.filter((event) => event.kind === 'thinking')).toHaveLength(1);
    expect(updates.map((event) => event.payload.metadata.message_id)).toEqual(['msg_scripted0001', 'msg_scripted0002']);
    expect(await usageJson(home, ['cli', '--no-cache', '--provider', 'claude'])).toEqual(before);

    // Another request of the same message id (a retry) is another response: counted.
    const third = { ...second, uuid: `${line.uuid.slice(0, -4)}cafe`, requestId: 'req_retry' };
    appendFileSync(file, `\n${JSON.stringify(third)}\n`);
    const after = await usageJson(home, ['cli', '--no-cache', '--provider', 'claude']);
    expect(after.totals.output_tokens).toBe(before.totals.output_tokens + 19);
  });

  it('reads no usage from cost-state, the process\u2019s running total (it would count the messages twice)', async () => {
    const refs = await listCliSessions({ provider: 'claude', env: { HOME: home } });
    for (const ref of refs) {
      const text = readFileSync(ref.path, 'utf8');
      expect(text).toContain('"type":"cost-state"');
      const events = await eventsOf(ref);
      for (const event of events.filter((each) => each.kind === 'cost_update')) expect(event.payload.metadata.aggregation).toBe('delta');
      expect(
        events.filter((each) => each.kind === 'raw' && JSON.stringify(each.payload.content).includes('cost-state')).length,
      ).toBeGreaterThan(0);
    }
  });
});

/** A price table of $1 per input token and $2 per output token, for `known` only, counting its calls. */
function fakePrices(known: readonly string[]): PriceTable & { calls: number } {
  const table = {
    version: 'test prices 1',
    calls: 0,
    price(model: string, figures: UsageFigures) {
      table.calls++;
      return known.includes(model) ? figures.input_tokens + 2 * figures.output_tokens : null;
    },
  };
  return table;
}

async function usageWith(prices: PriceTable, argv: string[], deps: Parameters<typeof usageCommand>[2] = {}) {
  const { io, stdout } = ioFor({ HOME: home, XDG_CACHE_HOME: join(home, 'cache'), TZ: 'UTC', NO_COLOR: '1' });
  expect(await usageCommand(argv, io, { prices, ...deps })).toBe(0);
  return stdout();
}

describe('prices: reported, computed, none', () => {
  it('marks the CLI\u2019s own price reported, the table\u2019s computed, and an unknown model has its tokens and no price', async () => {
    const prices = fakePrices(['claude-opus-5-5', 'gpt-5.5']);
    const report = JSON.parse(await usageWith(prices, ['cli', '--json', '--no-cache'])) as UsageReportJson;
    const row = (key: string) => report.rows.find((each) => each.key === key);
    // Claude Code's and Codex's stored sessions carry no price: computed from the table.
    for (const key of ['claude', 'codex']) {
      expect(row(key)?.cost_source).toBe('computed');
      expect(row(key)?.cost_usd).toBe((row(key)?.input_tokens ?? NaN) + 2 * (row(key)?.output_tokens ?? NaN));
    }
    // pi and Kilo report their price: kept, and the table is not asked.
    for (const key of ['pi', 'kilo']) expect(row(key)?.cost_source).toBe('reported');
    expect(row('pi')?.cost_usd).toBeGreaterThan(0);
    // Copilot's and Qwen's scripted model is no model the table knows: tokens, and no price.
    for (const key of ['copilot', 'qwen']) {
      expect(row(key)?.cost_usd).toBeNull();
      expect(row(key)?.cost_source).toBeNull();
      expect(row(key)?.total_tokens).toBeGreaterThan(0);
    }
    expect(report.totals.cost_source).toBe('mixed');

    const table = stripVTControlCharacters(await usageWith(prices, ['cli', '--no-cache']));
    expect(table).toMatch(/^copilot\s+4,200\s.*no price/m);
    expect(table).toMatch(/^claude\s.*~\$\d/m);
    expect(table).toMatch(/^pi\s.*\s\$0\.\d+/m);
    expect(table).toContain('~ computed from test prices 1');
    // pi's fake-model has its reported price, Copilot's and Qwen's none: the row's price covers part of its tokens.
    const byModel = stripVTControlCharacters(await usageWith(prices, ['model', '--no-cache']));
    expect(byModel).toMatch(/^fake-model\s.*\$0\.\d+\+/m);
    expect(byModel).toMatch(/^Total\s.*\+$/m);
    expect(byModel).toContain('+ and tokens of a model with no price');
  });
});

describe('the cache of read files', () => {
  /** A store file reader that notes each file it is asked to read. */
  function counting() {
    const read: string[] = [];
    return {
      read,
      listed: read,
      deps: {
        readFile: (provider: HistoryCli, file: string) => {
          read.push(file);
          return readStoreUsage(provider, file);
        },
      },
    };
  }

  it('reads each session file once: listed and tallied in one reading', async () => {
    // The module object itself (an import's namespace copy cannot be spied on): the store reader calls through it.
    const fs = require('node:fs') as typeof import('node:fs');
    const opened = jest.spyOn(fs, 'createReadStream');
    try {
      await usageWith(fakePrices([]), ['daily', '--json', '--no-cache']);
      const files = opened.mock.calls.map(([path]) => String(path)).filter((path) => path.endsWith('.jsonl'));
      expect(files.length).toBeGreaterThanOrEqual(10);
      expect(files.length).toBe(new Set(files).size);
    } finally {
      opened.mockRestore();
    }
  });

  it('a second run reads no unchanged file; a file whose size or modification time changed is read again', async () => {
    const prices = fakePrices(['claude-opus-5-5']);
    const first = counting();
    const firstOut = await usageWith(prices, ['cli', '--json'], first.deps);
    expect(first.listed.length).toBeGreaterThanOrEqual(FIXTURE_CLIS.length);
    expect(first.read.length).toBeGreaterThanOrEqual(FIXTURE_CLIS.length);
    expect(existsSync(join(home, 'cache', 'cli-subprocess-core', 'usage.json'))).toBe(true);

    const second = counting();
    expect(await usageWith(prices, ['cli', '--json'], second.deps)).toBe(firstOut);
    expect(second.listed).toEqual([]);
    expect(second.read).toEqual([]);

    // A new modification time: that file alone is read again.
    const [codex] = await listCliSessions({ provider: 'codex', env: { HOME: home } });
    const stat = statSync(codex.path);
    utimesSync(codex.path, stat.atime, new Date(stat.mtimeMs + 5000));
    const third = counting();
    expect(await usageWith(prices, ['cli', '--json'], third.deps)).toBe(firstOut);
    expect(third.listed).toEqual([codex.path]);
    expect(third.read).toEqual([codex.path]);

    // A database's write-ahead log that grew: the database is read again (its sessions are in the log).
    const wal = join(home, '.local', 'share', 'opencode', 'opencode.db-wal');
    appendFileSync(wal, Buffer.alloc(0));
    const walStat = statSync(wal);
    utimesSync(wal, walStat.atime, new Date(walStat.mtimeMs + 5000));
    const fourth = counting();
    await usageWith(prices, ['cli', '--json'], fourth.deps);
    expect(fourth.listed).toEqual([join(home, '.local', 'share', 'opencode', 'opencode.db')]);
  });

  it('--no-cache reads every file and writes no cache', async () => {
    const prices = fakePrices([]);
    const first = counting();
    await usageWith(prices, ['daily', '--json', '--no-cache'], first.deps);
    const second = counting();
    await usageWith(prices, ['daily', '--json', '--no-cache'], second.deps);
    expect(second.read.length).toBe(first.read.length);
    expect(second.read.length).toBeGreaterThan(0);
    expect(existsSync(join(home, 'cache'))).toBe(false);
  });

  it('a cache of another price table is not used (its computed prices would be another table\u2019s)', async () => {
    await usageWith(fakePrices([]), ['daily', '--json']);
    const again = counting();
    await usageWith({ ...fakePrices([]), version: 'test prices 2' }, ['daily', '--json'], again.deps);
    expect(again.read.length).toBeGreaterThan(0);
  });
});
