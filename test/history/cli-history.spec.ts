import 'reflect-metadata';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { AnyEvent } from '../../src/events/event';
import { listCliSessions, readCliSession, type CliSessionRef } from '../../src/history';
import { sqliteImage } from '../../src/stores/sqlite-file';

/*
 * The CLIs' own stored sessions, over real stores of the pinned CLIs
 * (test/fixtures/history/<cli>/<scenario>/, captured by e2e/capture/history.ts: a one-turn run
 * with a tool call, and a session of two turns, the second a resume, or for Cline a second prompt of
 * one `cline --acp` session), and over broken copies.
 */

const FIXTURES = join(__dirname, '..', 'fixtures', 'history');

const PROMPT = 'Run echo hello-from-tool.';

interface Cli {
  provider: 'claude' | 'codex' | 'gemini' | 'qwen' | 'copilot' | 'opencode' | 'kilo' | 'pi' | 'cline';
  /** The override variable, and its value for a captured store's folder (default: the folder). */
  variable: string;
  value?: (dir: string) => string;
  /** Its store's folder under HOME when the variable is unset. */
  home: string;
  /** The folder of the fixture that is `home`, where the variable stands for HOME itself. */
  inStore?: string;
  /** The session id's form (default: a UUID). */
  id?: RegExp;
  /** The prompt as the CLI stored it: `opencode run` and `kilo run` quote an argument with spaces. */
  prompt?: string;
  /** The CLI's title for the tool session, where it made one (the scripted endpoint names OpenCode's). */
  title?: string;
  /** How a store is cut while written: the last line of a JSON-lines file, a SQLite row, a JSON document. */
  cut?: 'row' | 'document';
}

/** Each CLI's override variable, pointed at a captured store, and its store's folder under HOME. */
const CLIS: Cli[] = [
  { provider: 'claude', variable: 'CLAUDE_CONFIG_DIR', home: '.claude' },
  { provider: 'codex', variable: 'CODEX_HOME', home: '.codex' },
  { provider: 'gemini', variable: 'GEMINI_CLI_HOME', home: '.gemini', inStore: '.gemini' },
  { provider: 'qwen', variable: 'QWEN_HOME', home: '.qwen' },
  { provider: 'copilot', variable: 'COPILOT_HOME', home: '.copilot' },
  {
    provider: 'opencode',
    variable: 'OPENCODE_DB',
    value: (dir) => join(dir, 'opencode.db'),
    home: '.local/share/opencode',
    id: /^ses_\w+$/,
    prompt: `"${PROMPT}"`,
    title: 'Scripted session',
    cut: 'row',
  },
  {
    provider: 'kilo',
    variable: 'KILO_DB',
    value: (dir) => join(dir, 'kilo.db'),
    home: '.local/share/kilo',
    id: /^ses_\w+$/,
    prompt: `"${PROMPT}"`,
    cut: 'row',
  },
  { provider: 'pi', variable: 'PI_CODING_AGENT_DIR', home: '.pi/agent' },
  { provider: 'cline', variable: 'CLINE_DATA_DIR', home: '.cline/data', id: /^\d+_\w+$/, cut: 'document' },
];

const inStore = (cli: Cli): string => cli.inStore ?? '';

const store = (cli: Cli, scenario: string) => join(FIXTURES, cli.provider, scenario);
const envAt = (cli: Cli, dir: string): NodeJS.ProcessEnv => ({ HOME: '/nonexistent-home', [cli.variable]: cli.value?.(dir) ?? dir });
const envFor = (cli: Cli, scenario: string): NodeJS.ProcessEnv => envAt(cli, store(cli, scenario));

async function eventsOf(ref: Pick<CliSessionRef, 'provider' | 'path'>): Promise<AnyEvent[]> {
  const events: AnyEvent[] = [];
  for await (const event of readCliSession(ref)) events.push(event);
  return events;
}

const payloadText = (event: AnyEvent | undefined): string => JSON.stringify(event?.payload ?? null);
const texts = (events: AnyEvent[], kind: string): string[] =>
  events
    .filter(
      (event) => event.kind === kind && (event.payload as { metadata?: { context?: boolean; meta?: boolean } }).metadata?.context !== true,
    )
    .map((event) =>
      ((event.payload as { content?: { type?: string; text?: string }[] }).content ?? []).map((block) => block.text ?? '').join(''),
    );

/** Every file of a folder tree, for the "never writes" check: path, size and modification time. */
function snapshot(dir: string): string[] {
  const out: string[] = [];
  const walk = (at: string) => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      const info = statSync(path);
      if (info.isDirectory()) walk(path);
      else out.push(`${path} ${info.size} ${info.mtimeMs}`);
    }
  };
  walk(dir);
  return out.sort();
}

describe.each(CLIS)('$provider: its own stored sessions', (cli) => {
  it('lists a one-turn session with a tool call: id, cwd from the lines, first prompt, times, model, file', async () => {
    const refs = await listCliSessions({ provider: cli.provider, env: envFor(cli, 'tool') });
    expect(refs).toHaveLength(1);
    const [ref] = refs;
    expect(ref.provider).toBe(cli.provider);
    expect(ref.id).toMatch(cli.id ?? /^[0-9a-f-]{36}$/);
    expect(ref.cwd).toMatch(new RegExp(`^/.*${cli.provider}-cwd-`));
    expect(ref.title).toBe(cli.title ?? cli.prompt ?? PROMPT);
    expect(Date.parse(ref.started_at as string)).toBeLessThanOrEqual(Date.parse(ref.updated_at as string));
    expect(ref.model).toEqual(expect.any(String));
    expect(ref.path.startsWith(store(cli, 'tool'))).toBe(true);
    if (cli.provider === 'codex') expect(ref.origin).toBe('exec');
  });

  it('reads it into the live vocabulary: start, prompt, tool call and result, answer, usage', async () => {
    const [ref] = await listCliSessions({ provider: cli.provider, env: envFor(cli, 'tool') });
    const events = await eventsOf(ref);
    expect(events.every((event) => event.provider === cli.provider)).toBe(true);
    const started = events.find((event) => event.kind === 'run_started');
    expect(started?.payload).toMatchObject({ provider_session_id: ref.id, cwd: ref.cwd });
    expect(texts(events, 'user_message')).toEqual([cli.prompt ?? PROMPT]);
    const call = events.find((event) => event.kind === 'tool_use');
    expect(payloadText(call)).toContain('echo hello-from-tool');
    const callId = (call?.payload as { tool_call_id: string }).tool_call_id;
    const result = events.find((event) => event.kind === 'tool_result');
    expect(result?.payload).toMatchObject({ tool_call_id: callId, is_error: false });
    expect(payloadText(result)).toContain('hello-from-tool');
    expect(texts(events, 'assistant_message')).toContain('The command printed hello-from-tool.');
    expect(events.some((event) => event.kind === 'cost_update')).toBe(true);
    // Nothing thrown away: every line the format does not map is kept as raw.
    expect(events.findIndex((event) => event.kind === 'tool_use')).toBeLessThan(events.findIndex((event) => event.kind === 'tool_result'));
  });

  it('lists a session of two turns (the second a resume) once, titled by its first prompt, and reads both', async () => {
    const refs = await listCliSessions({ provider: cli.provider, env: envFor(cli, 'two-turns') });
    const ids = new Set(refs.map((ref) => ref.id));
    expect(ids.size).toBe(1);
    const quote = (text: string) => (cli.prompt === undefined ? text : `"${text}"`);
    if (cli.title === undefined) expect(refs.find((ref) => ref.title === quote('Say one.'))).toBeDefined();
    const events = (await Promise.all(refs.map(eventsOf))).flat();
    expect(texts(events, 'user_message')).toEqual(expect.arrayContaining([quote('Say one.'), quote('Say two.')]));
    expect(texts(events, 'assistant_message')).toEqual(expect.arrayContaining(['one', 'two']));
  });

  it('filters by cwd, and finds the store under HOME when the override variable is unset', async () => {
    const home = mkdtempSync(join(tmpdir(), 'history-home-'));
    try {
      mkdirSync(dirname(join(home, cli.home)), { recursive: true });
      symlinkSync(join(store(cli, 'tool'), inStore(cli)), join(home, cli.home));
      const [ref] = await listCliSessions({ env: { HOME: home } });
      expect(ref).toMatchObject({ provider: cli.provider, title: cli.title ?? cli.prompt ?? PROMPT });
      expect(await listCliSessions({ env: { HOME: home }, cwd: ref.cwd as string })).toHaveLength(1);
      expect(await listCliSessions({ env: { HOME: home }, cwd: '/somewhere/else' })).toEqual([]);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  (cli.cut === undefined ? it : it.skip)(
    'a file cut in the middle of its last line (still being written): the whole lines read, the rest raw, nothing thrown',
    async () => {
      const copy = mkdtempSync(join(tmpdir(), 'history-cut-'));
      try {
        cpSync(store(cli, 'tool'), copy, { recursive: true });
        const [ref] = await listCliSessions({ provider: cli.provider, env: envAt(cli, copy) });
        const whole = await eventsOf(ref);
        const text = readFileSync(ref.path, 'utf8');
        const lastLine = text.trimEnd().lastIndexOf('\n') + 1;
        writeFileSync(ref.path, text.slice(0, lastLine + Math.floor((text.trimEnd().length - lastLine) / 2)));
        const [cut] = await listCliSessions({ provider: cli.provider, env: envAt(cli, copy) });
        expect(cut).toMatchObject({ id: ref.id, cwd: ref.cwd, title: ref.title });
        const events = await eventsOf(cut);
        // The cut line as a raw event, then one warning that counts it.
        expect(events.at(-2)?.kind).toBe('raw');
        expect(events.at(-1)).toMatchObject({
          kind: 'error',
          payload: { severity: 'warning', metadata: { unreadable_lines: 1, path: cut.path } },
        });
        expect(whole.some((event) => event.kind === 'error' && event.payload.severity === 'warning')).toBe(false);
        expect(events.filter((event) => event.kind === 'user_message')).toHaveLength(
          whole.filter((event) => event.kind === 'user_message').length,
        );
        expect(events.some((event) => event.kind === 'tool_use')).toBe(true);
      } finally {
        rmSync(copy, { recursive: true, force: true });
      }
    },
  );

  it('never writes to the store it reads', async () => {
    const before = snapshot(store(cli, 'two-turns'));
    for (const ref of await listCliSessions({ provider: cli.provider, env: envFor(cli, 'two-turns') })) await eventsOf(ref);
    expect(snapshot(store(cli, 'two-turns'))).toEqual(before);
  });
});

/** A captured store's copy in a temporary folder, removed after `use`. */
async function withCopy(cli: Cli, use: (dir: string) => Promise<void>): Promise<void> {
  const copy = mkdtempSync(join(tmpdir(), 'history-cut-'));
  try {
    cpSync(store(cli, 'tool'), copy, { recursive: true });
    await use(copy);
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

/** Rewrites a database by SQLite itself (sql.js) into one without a log, after running `sql` on it. */
async function rewrite(path: string, sql: string): Promise<void> {
  const SQL = (await (await import('sql.js')).default()) as {
    Database: new (data: Uint8Array) => { run(sql: string): void; export(): Uint8Array; close(): void };
  };
  const edited = new SQL.Database(await sqliteImage(path));
  edited.run(sql);
  writeFileSync(path, edited.export());
  edited.close();
  rmSync(`${path}-wal`);
}

describe.each(CLIS.filter((cli) => cli.cut === 'row'))('$provider: its database while being written', (cli) => {
  const db = (dir: string) => (cli.value as (dir: string) => string)(dir);

  it('a database of two sessions in two folders: both listed, each by its own cwd, each read alone', async () => {
    await withCopy(cli, async (copy) => {
      // A second session: the first's rows under another id, in another folder.
      await rewrite(
        db(copy),
        [
          `INSERT INTO session SELECT 'ses_second', project_id, workspace_id, parent_id, slug, '/elsewhere', path, title, version, share_url, summary_additions, summary_deletions, summary_files, summary_diffs, metadata, cost, tokens_input, tokens_output, tokens_reasoning, tokens_cache_read, tokens_cache_write, revert, permission, agent, model, time_created + 1, time_updated + 1, time_compacting, time_archived FROM session`,
          `INSERT INTO message SELECT id || '_2', 'ses_second', time_created, time_updated, data FROM message`,
          `INSERT INTO part SELECT id || '_2', message_id || '_2', 'ses_second', time_created, time_updated, data FROM part`,
        ].join(';'),
      );
      const refs = await listCliSessions({ provider: cli.provider, env: envAt(cli, copy) });
      expect(refs.map((ref) => ref.id)).toEqual(['ses_second', expect.stringMatching(/^ses_(?!second)/)]);
      expect(refs.map((ref) => ref.path)).toEqual(refs.map((ref) => `${db(copy)}#${ref.id}`));
      const [elsewhere] = await listCliSessions({ provider: cli.provider, env: envAt(cli, copy), cwd: '/elsewhere' });
      expect(elsewhere).toMatchObject({ id: 'ses_second', cwd: '/elsewhere' });
      for (const ref of refs) expect(texts(await eventsOf(ref), 'user_message')).toEqual([cli.prompt ?? PROMPT]);
    });
  });

  it('a row whose JSON is cut: that row raw, the others read, nothing thrown', async () => {
    await withCopy(cli, async (copy) => {
      // Rewritten by SQLite itself (sql.js) into a database without a log, the tool part's JSON cut short.
      await rewrite(db(copy), `UPDATE part SET data = substr(data, 1, 40) WHERE data LIKE '{"type":"tool"%'`);
      const [ref] = await listCliSessions({ provider: cli.provider, env: envAt(cli, copy) });
      expect(ref).toMatchObject({ provider: cli.provider, title: cli.title ?? cli.prompt ?? PROMPT });
      const events = await eventsOf(ref);
      expect(events.some((event) => event.kind === 'tool_use')).toBe(false);
      expect(events.some((event) => event.kind === 'raw' && payloadText(event).includes('{\\"type\\":\\"tool\\"'))).toBe(true);
      expect(texts(events, 'user_message')).toEqual([cli.prompt ?? PROMPT]);
      expect(texts(events, 'assistant_message')).toContain('The command printed hello-from-tool.');
    });
  });

  it('a log cut in the middle of its last frame: the transactions before it read, nothing thrown', async () => {
    await withCopy(cli, async (copy) => {
      const [whole] = await listCliSessions({ provider: cli.provider, env: envAt(cli, copy) });
      const wal = readFileSync(`${db(copy)}-wal`);
      writeFileSync(`${db(copy)}-wal`, wal.subarray(0, wal.length - 100));
      const [cut] = await listCliSessions({ provider: cli.provider, env: envAt(cli, copy) });
      expect(cut).toMatchObject({ id: whole.id, cwd: whole.cwd });
      expect(texts(await eventsOf(cut), 'user_message')).toEqual([cli.prompt ?? PROMPT]);
    });
  });
});

describe.each(CLIS.filter((cli) => cli.cut === 'document'))('$provider: its messages document while being written', (cli) => {
  it('a messages document cut in the middle: listed from the session file, the messages raw, nothing thrown', async () => {
    await withCopy(cli, async (copy) => {
      const [ref] = await listCliSessions({ provider: cli.provider, env: envAt(cli, copy) });
      const messages = ref.path.replace(/\.json$/, '.messages.json');
      const text = readFileSync(messages, 'utf8');
      writeFileSync(messages, text.slice(0, Math.floor(text.length / 2)));
      const [cut] = await listCliSessions({ provider: cli.provider, env: envAt(cli, copy) });
      expect(cut).toMatchObject({ id: ref.id, cwd: ref.cwd, title: ref.title });
      const events = await eventsOf(cut);
      // The cut document: raw, and the warning that counts its unreadable lines.
      expect(events.map((event) => event.kind)).toEqual(['run_started', 'raw', 'error']);
    });
  });
});

describe('foreign and missing stores', () => {
  it('a foreign file in a store: left out of the list, read as raw events, nothing thrown', async () => {
    const root = mkdtempSync(join(tmpdir(), 'history-foreign-'));
    try {
      const path = join(root, 'rollout-foreign.jsonl');
      writeFileSync(path, 'not json at all\n{"type":"from_a_newer_version","payload":{"x":1}}\n[1,2]\n{"half":');
      expect(await listCliSessions({ provider: 'claude', env: { CLAUDE_CONFIG_DIR: root } })).toEqual([]);
      for (const provider of ['claude', 'codex', 'gemini', 'qwen', 'copilot', 'pi'] as const) {
        const events = await eventsOf({ provider, path });
        expect(events.map((event) => event.kind)).toEqual(['raw', 'raw', 'raw', 'raw', 'error']);
        expect(JSON.stringify(events[1].payload)).toContain('from_a_newer_version');
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('a store that does not exist lists nothing', async () => {
    expect(await listCliSessions({ env: { HOME: '/nonexistent-home' } })).toEqual([]);
  });
});

describe("gemini: a chat's log of document changes", () => {
  const resumed = join(FIXTURES, 'gemini', 'resumed-next-minute');

  it('a resume in a later minute: the stray new file (metadata and context only) is not listed, as Gemini CLI lists it not', async () => {
    // Captured from Gemini CLI 0.61.0: `--resume` started `session-…T19-23-<id8>.jsonl` and appended the turn to the first file.
    const refs = await listCliSessions({ provider: 'gemini', env: { HOME: '/nonexistent-home', GEMINI_CLI_HOME: resumed } });
    expect(refs).toHaveLength(1);
    expect(refs[0]).toMatchObject({ id: '7fd02f74-e83e-46a6-80c5-b53d60aed5c2', cwd: '/tmp/gemini-cwd-dClIfC', model: 'gemini-3.8-flash' });
    expect(refs[0].path).toMatch(/T19-22-7fd02f74\.jsonl$/);
    const events = await eventsOf(refs[0]);
    // The resume's `$set` of all the messages again tells nothing twice; the tool call's two records one call.
    expect(texts(events, 'user_message')).toEqual(['Run echo hello-from-tool.', 'Say two.']);
    expect(texts(events, 'assistant_message')).toEqual(['The command printed hello-from-tool.', 'two']);
    expect(events.filter((event) => event.kind === 'tool_use')).toHaveLength(1);
    expect(events.filter((event) => event.kind === 'tool_result')).toHaveLength(1);
    expect(events.filter((event) => event.kind === 'cost_update')).toHaveLength(3);
    expect(events.filter((event) => event.kind === 'run_started')).toHaveLength(1);
  });

  it("an older version's .json document: listed and read as its records; cut short, its lines raw and nothing thrown", async () => {
    const copy = mkdtempSync(join(tmpdir(), 'history-gemini-json-'));
    try {
      cpSync(store(CLIS[2], 'tool'), copy, { recursive: true });
      const [ref] = await listCliSessions({ provider: 'gemini', env: { HOME: '/nonexistent-home', GEMINI_CLI_HOME: copy } });
      const whole = await eventsOf(ref);
      // The document the log describes, as versions before the JSON-lines log wrote it.
      const records = readFileSync(ref.path, 'utf8')
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      const metadata = records[0];
      const messages = new Map<string, unknown>();
      for (const record of records) {
        const set = record.$set as { messages?: { id: string }[] } | undefined;
        if (set?.messages) {
          messages.clear();
          for (const message of set.messages) messages.set(message.id, message);
        }
        if (typeof record.id === 'string') messages.set(record.id, record);
      }
      const document = { ...metadata, messages: [...messages.values()] };
      const path = ref.path.replace(/\.jsonl$/, '.json');
      rmSync(ref.path);
      writeFileSync(path, JSON.stringify(document, null, 2));
      const [legacy] = await listCliSessions({ provider: 'gemini', env: { HOME: '/nonexistent-home', GEMINI_CLI_HOME: copy } });
      expect(legacy).toMatchObject({ id: ref.id, cwd: ref.cwd, title: ref.title, model: ref.model, path });
      const events = await eventsOf(legacy);
      for (const kind of ['run_started', 'user_message', 'tool_use', 'tool_result', 'assistant_message', 'cost_update'])
        expect(events.filter((event) => event.kind === kind)).toHaveLength(whole.filter((event) => event.kind === kind).length);

      writeFileSync(path, JSON.stringify(document, null, 2).slice(0, 400));
      expect(await listCliSessions({ provider: 'gemini', env: { HOME: '/nonexistent-home', GEMINI_CLI_HOME: copy } })).toEqual([]);
      const cut = await eventsOf({ provider: 'gemini', path });
      expect(cut.length).toBeGreaterThan(0);
      expect(cut.slice(0, -1).every((event) => event.kind === 'raw')).toBe(true);
      expect(cut.at(-1)).toMatchObject({ kind: 'error', payload: { severity: 'warning' } });
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});

describe("the CLI's own title wins over the first prompt", () => {
  // The records as the pinned CLIs' own code writes them: Gemini CLI's `saveSummary` (a `$set`), Qwen Code's `custom_title`.
  const titled = [
    { cli: CLIS[2], record: (ref: CliSessionRef) => ({ $set: { summary: 'Echo a greeting', lastUpdated: ref.updated_at } }) },
    {
      cli: CLIS[3],
      record: (ref: CliSessionRef) => ({
        uuid: '00000000-0000-4000-8000-000000000001',
        parentUuid: null,
        sessionId: ref.id,
        timestamp: ref.updated_at,
        type: 'system',
        subtype: 'custom_title',
        cwd: ref.cwd,
        systemPayload: { customTitle: 'Echo a greeting', titleSource: 'auto' },
      }),
    },
  ];

  it.each(titled)('$cli.provider', async ({ cli, record }) => {
    const copy = mkdtempSync(join(tmpdir(), 'history-titled-'));
    try {
      cpSync(store(cli, 'tool'), copy, { recursive: true });
      const env = { HOME: '/nonexistent-home', [cli.variable]: copy };
      const [ref] = await listCliSessions({ provider: cli.provider, env });
      writeFileSync(ref.path, `${readFileSync(ref.path, 'utf8')}${JSON.stringify(record(ref))}\n`);
      const [named] = await listCliSessions({ provider: cli.provider, env });
      expect(named).toMatchObject({ id: ref.id, title: 'Echo a greeting' });
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});
