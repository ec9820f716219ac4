import 'reflect-metadata';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pointCliAt, type CliName } from '../../e2e/scripted/setup';
import { cliDefinition } from '../../src/clis';
import { BASE_ENV, cliEnvironment } from '../../src/runner/environment';
import { startRun } from '../../src/runner/run';
import type { AgentCli, RunOptions } from '../../src/runner/types';
import { startSession } from '../../src/sessions/session';

/*
 * The finding: every CLI a server ran for a request inherited the server's whole environment (cloud
 * keys, CI tokens, database URLs), and the agent runs whatever shell command a prompt asks for. With
 * `inheritEnv: false` a CLI sees only an allow-list; the default still inherits, as child_process does.
 */

const FAKE = join(__dirname, 'fake-cli.js');
const CLAUDE_PLAIN = join(__dirname, '..', 'fixtures', 'providers', 'claude', 'captured-plain.jsonl');
const SECRETS = {
  AWS_SECRET_ACCESS_KEY: 'aws-secret',
  GITHUB_TOKEN: 'ghs_ci',
  DATABASE_URL: 'postgres://u:p@db/x',
  STRIPE_SECRET_KEY: 'sk_live_x',
};

jest.setTimeout(20_000);

/** Per CLI: variables its own list passes, and one of another CLI's that it must not see. */
const OWN: Record<AgentCli, { sees: Record<string, string>; notOthers: string }> = {
  claude: {
    sees: {
      ANTHROPIC_API_KEY: 'sk-ant',
      CLAUDE_CODE_MAX_RETRIES: '1',
      CLAUDE_CONFIG_DIR: '/c',
      DISABLE_AUTOUPDATER: '1',
      MCP_TIMEOUT: '5000',
    },
    notOthers: 'OPENAI_API_KEY',
  },
  codex: {
    sees: { OPENAI_API_KEY: 'sk-o', OPENAI_BASE_URL: 'http://o', CODEX_HOME: '/c', RUST_LOG: 'off' },
    notOthers: 'ANTHROPIC_API_KEY',
  },
  gemini: {
    sees: { GEMINI_API_KEY: 'g', GOOGLE_GEMINI_BASE_URL: 'http://g', GOOGLE_CLOUD_PROJECT: 'p', CODE_ASSIST_ENDPOINT: 'http://c' },
    notOthers: 'OPENAI_API_KEY',
  },
  opencode: { sees: { OPENCODE_CONFIG: '/o.json', ANTHROPIC_API_KEY: 'sk-ant', OPENAI_API_KEY: 'sk-o' }, notOthers: 'GEMINI_API_KEY' },
  qwen: {
    sees: { OPENAI_API_KEY: 'sk-o', OPENAI_BASE_URL: 'http://o', OPENAI_MODEL: 'm', QWEN_HOME: '/q', DASHSCOPE_API_KEY: 'd' },
    notOthers: 'COPILOT_PROVIDER_API_KEY',
  },
  copilot: {
    sees: { COPILOT_PROVIDER_API_KEY: 'c', COPILOT_HOME: '/c', GH_TOKEN: 'gho_x', GH_HOST: 'github.example' },
    notOthers: 'OPENAI_API_KEY',
  },
  pi: {
    sees: { PI_CODING_AGENT_DIR: '/p', PI_OFFLINE: '1', OPENAI_API_KEY: 'sk-o', GROQ_API_KEY: 'g' },
    notOthers: 'COPILOT_PROVIDER_API_KEY',
  },
  kilo: { sees: { KILO_CONFIG: '/k.json', OPENAI_API_KEY: 'sk-o', KILO_NO_DAEMON: '1' }, notOthers: 'GEMINI_API_KEY' },
  cline: {
    sees: { CLINE_PROVIDER: 'openai-compatible', CLINE_API_KEY: 'k', CLINE_DIR: '/c', CLINE_SESSION_BACKEND_MODE: 'local' },
    notOthers: 'OPENAI_API_KEY',
  },
};

// OWN is a Record of every CLI this package starts (the registry's): a CLI added there without a case here fails to compile.
const CLIS = Object.keys(OWN) as AgentCli[];

/** A host environment with the base variables, every CLI's own, other CLIs' and the secrets. */
function hostEnv(): NodeJS.ProcessEnv {
  const own = Object.assign({}, ...CLIS.map((cli) => OWN[cli].sees)) as Record<string, string>;
  const base = {
    PATH: '/usr/bin:/bin',
    HOME: '/home/u',
    LANG: 'C.UTF-8',
    LC_ALL: 'C.UTF-8',
    TMPDIR: '/tmp/u',
    XDG_CACHE_HOME: '/home/u/.cache',
    https_proxy: 'http://proxy:3128',
    NODE_EXTRA_CA_CERTS: '/ca.pem',
  };
  return {
    ...base,
    ...own,
    GEMINI_API_KEY: 'g',
    ANTHROPIC_API_KEY: 'sk-ant',
    OPENAI_API_KEY: 'sk-o',
    COPILOT_PROVIDER_API_KEY: 'c',
    ...SECRETS,
    PATHOLOGICAL: 'x',
  };
}

describe("every CLI inherits the server's whole environment: the picker", () => {
  it.each(CLIS)("%s with inheritEnv false: the base list and its own variables, no secrets, no other CLI's", (cli) => {
    const env = cliEnvironment(cli, { inheritEnv: false }, hostEnv());
    expect(env).toMatchObject({
      PATH: '/usr/bin:/bin',
      HOME: '/home/u',
      LC_ALL: 'C.UTF-8',
      TMPDIR: '/tmp/u',
      XDG_CACHE_HOME: '/home/u/.cache',
      https_proxy: 'http://proxy:3128',
      NODE_EXTRA_CA_CERTS: '/ca.pem',
      ...OWN[cli].sees,
    });
    for (const secret of Object.keys(SECRETS)) expect(env).not.toHaveProperty(secret);
    expect(env).not.toHaveProperty(OWN[cli].notOthers);
    // `PATH` is a name, not a prefix.
    expect(env).not.toHaveProperty('PATHOLOGICAL');
  });

  it.each(CLIS)('%s by default: the whole host environment, as child_process gives, with what its registry file sets', (cli) => {
    expect(cliEnvironment(cli, {}, hostEnv())).toEqual({ ...hostEnv(), ...cliDefinition(cli).env.set });
  });

  it("kilo: the registry's switches are set over the host's, and the caller's env goes over them", () => {
    const host = { ...hostEnv(), KILO_NO_DAEMON: '' };
    expect(cliEnvironment('kilo', { inheritEnv: false }, host)).toMatchObject({ KILO_NO_DAEMON: '1', KILO_TELEMETRY_LEVEL: 'off' });
    const env = cliEnvironment('kilo', { env: { KILO_TELEMETRY_LEVEL: 'all', KILO_NO_DAEMON: undefined } }, host);
    expect(env).toHaveProperty('KILO_TELEMETRY_LEVEL', 'all');
    expect(env).not.toHaveProperty('KILO_NO_DAEMON');
  });

  it('copilot: GITHUB_TOKEN passes only when the operator names it', () => {
    expect(cliEnvironment('copilot', { inheritEnv: false }, hostEnv())).not.toHaveProperty('GITHUB_TOKEN');
    expect(cliEnvironment('copilot', { inheritEnv: false, passEnv: ['GITHUB_TOKEN'] }, hostEnv())).toHaveProperty('GITHUB_TOKEN', 'ghs_ci');
  });

  it('passEnv: names and prefixes; ignored when the whole environment is inherited anyway', () => {
    const host = { ...hostEnv(), MYCORP_REGION: 'eu', MYCORP_TENANT: 't', MYCORPORATE: 'no', SENTRY_DSN: 'https://s' };
    const env = cliEnvironment('claude', { inheritEnv: false, passEnv: ['SENTRY_DSN', 'MYCORP_*'] }, host);
    expect(env).toMatchObject({ SENTRY_DSN: 'https://s', MYCORP_REGION: 'eu', MYCORP_TENANT: 't' });
    expect(env).not.toHaveProperty('MYCORPORATE');
    expect(env).not.toHaveProperty('AWS_SECRET_ACCESS_KEY');
    expect(cliEnvironment('claude', { passEnv: ['SENTRY_DSN'] }, host)).toEqual(host);
  });

  it("the caller's env goes over the picked one: set, override, remove; a NUL is refused", () => {
    const env = cliEnvironment(
      'claude',
      { inheritEnv: false, env: { EXTRA: '1', HOME: '/other', ANTHROPIC_API_KEY: undefined, DATABASE_URL: 'sqlite://own' } },
      hostEnv(),
    );
    expect(env).toMatchObject({ EXTRA: '1', HOME: '/other', DATABASE_URL: 'sqlite://own' });
    expect(env).not.toHaveProperty('ANTHROPIC_API_KEY');
    expect(() => cliEnvironment('claude', { inheritEnv: false, env: { EXTRA: 'a\0b' } }, hostEnv())).toThrow(
      'env EXTRA must not contain a NUL byte',
    );
  });

  it('dropEnv is removed, inherited or allow-listed, unless the caller sets it', () => {
    const host = { ...hostEnv(), CLAUDECODE: '1' };
    expect(cliEnvironment('claude', {}, host)).not.toHaveProperty('CLAUDECODE');
    expect(cliEnvironment('claude', { inheritEnv: false }, host)).not.toHaveProperty('CLAUDECODE');
    expect(cliEnvironment('claude', { inheritEnv: false, env: { CLAUDECODE: '1' } }, host)).toHaveProperty('CLAUDECODE', '1');
  });

  it('refuses options that would quietly pass everything', () => {
    expect(() => cliEnvironment('claude', { inheritEnv: false, passEnv: ['*'] }, hostEnv())).toThrow(
      /passEnv entries must be variable names/,
    );
    expect(() => cliEnvironment('claude', { inheritEnv: false, passEnv: [''] }, hostEnv())).toThrow(TypeError);
    expect(() => cliEnvironment('claude', { inheritEnv: false, passEnv: 'MYCORP_*' as never }, hostEnv())).toThrow(
      'passEnv must be an array of variable names',
    );
    expect(() => cliEnvironment('claude', { inheritEnv: 'false' as never }, hostEnv())).toThrow(
      'inheritEnv must be a boolean; got "false"',
    );
  });

  it('BASE_ENV holds the proxies in both cases', () => {
    for (const name of ['HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY', 'ALL_PROXY'])
      expect(BASE_ENV).toEqual(expect.arrayContaining([name, name.toLowerCase()]));
  });

  // What each real CLI is given to reach a scripted endpoint (e2e/scripted/setup.ts) is what it
  // needs to run at all: all of it must pass the allow-list.
  it.each(CLIS)('%s: every variable the e2e setup gives the real CLI passes', (cli) => {
    const home = mkdtempSync(join(tmpdir(), `environment-${cli}-`));
    try {
      // The e2e suite adds CLAUDE_CODE_MAX_RETRIES for Claude Code.
      const needed = {
        ...pointCliAt(cli as CliName, home, 'http://127.0.0.1:9'),
        ...(cli === 'claude' ? { CLAUDE_CODE_MAX_RETRIES: '1' } : {}),
      };
      expect(cliEnvironment(cli, { inheritEnv: false }, { ...needed, ...SECRETS })).toEqual(needed);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe("every CLI inherits the server's whole environment: what a launched CLI sees", () => {
  let dir: string;
  const saved = { ...process.env };
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'environment-test-'));
    Object.assign(process.env, SECRETS, { ANTHROPIC_API_KEY: 'sk-ant-host', SENTRY_DSN: 'https://s', MYCORP_REGION: 'eu' });
  });
  afterEach(() => {
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
    Object.assign(process.env, saved);
    rmSync(dir, { recursive: true, force: true });
  });

  /** The environment the stand-in CLI (fake-cli.js) saw, run through `startRun`. */
  async function seenByRun(options: Partial<RunOptions>): Promise<Record<string, string>> {
    const file = join(dir, 'env.json');
    const run = startRun({
      provider: 'claude',
      prompt: 'hi',
      executable: FAKE,
      cwd: dir,
      ...options,
      env: { FAKE_ENV_FILE: file, FAKE_FIXTURE: CLAUDE_PLAIN, ...options.env },
    });
    expect((await run.done).status).toBe('completed');
    return JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
  }

  it("startRun with inheritEnv false: PATH, HOME, its own key, passEnv and the caller's env; no secrets", async () => {
    const env = await seenByRun({ inheritEnv: false, passEnv: ['SENTRY_DSN', 'MYCORP_*'], env: { CALLER_SET: 'yes' } });
    expect(env).toMatchObject({
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      ANTHROPIC_API_KEY: 'sk-ant-host',
      SENTRY_DSN: 'https://s',
      MYCORP_REGION: 'eu',
      CALLER_SET: 'yes',
    });
    for (const secret of Object.keys(SECRETS)) expect(env).not.toHaveProperty(secret);
  });

  it('startRun by default: everything, as today', async () => {
    const env = await seenByRun({ env: { CALLER_SET: 'yes' } });
    expect(env).toMatchObject({ ...SECRETS, ANTHROPIC_API_KEY: 'sk-ant-host', SENTRY_DSN: 'https://s', CALLER_SET: 'yes' });
  });

  // Kilo Code 7.7.7 finds its project from PWD: a run given another cwd worked in the host's directory.
  it("startRun: PWD is the run's cwd (absolute), not the host's, even when the caller's env names another", async () => {
    process.env.PWD = '/somewhere/else';
    expect(await seenByRun({})).toMatchObject({ PWD: dir });
    expect(await seenByRun({ cwd: relative(process.cwd(), dir) })).toMatchObject({ PWD: dir });
    expect(await seenByRun({ env: { PWD: '/caller/dir' } })).toMatchObject({ PWD: dir });
  });

  /** A stand-in that writes its environment to ENV_FILE and exits: enough for what a session's CLI is started with. */
  function envDumper(): string {
    const script = join(dir, 'dump-env.js');
    writeFileSync(script, `#!${process.execPath}\nrequire('node:fs').writeFileSync(process.env.ENV_FILE, JSON.stringify(process.env));\n`);
    chmodSync(script, 0o755);
    return script;
  }

  it.each(CLIS)('startSession %s with inheritEnv false: its own variables, no secrets', async (cli) => {
    Object.assign(process.env, OWN[cli].sees);
    const file = join(dir, 'env.json');
    const session = startSession({
      provider: cli,
      executable: envDumper(),
      cwd: dir,
      inheritEnv: false,
      killGraceMs: 500,
      env: { ENV_FILE: file },
    });
    await session.done;
    const env = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
    expect(env).toMatchObject({ PATH: process.env.PATH, PWD: dir, ...OWN[cli].sees });
    for (const secret of Object.keys(SECRETS)) expect(env).not.toHaveProperty(secret);
  });
});
