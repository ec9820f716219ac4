import 'reflect-metadata';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { CLIS, SESSION_CLI_IDS } from '../../src/clis';
import type { CliDefinition } from '../../src/clis/definition';
import { authMethods, missingCredentials } from '../../src/projections/acp/auth';
import type { SessionProvider } from '../../src/sessions/types';

/*
 * Each CLI's registry `auth` entry, through `missingCredentials` (what the ACP agent's `authenticate`
 * checks): any one key variable is enough; else a file where the CLI's own login leaves it, under the
 * config dir its own override variables choose (the paths below are the ones each CLI's registry
 * comment cites), and a file the CLI keeps anyway only when it holds the login.
 */

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'acp-auth-'));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const write = (path: string, text = '{}'): void => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
};

/** Where each CLI's login leaves its credentials: by default under HOME, and under its override variables. */
const LOGINS: Record<string, { home: string; overridden: [Record<string, string>, string] | null }> = {
  claude: { home: '.claude/.credentials.json', overridden: [{ CLAUDE_CONFIG_DIR: 'conf' }, 'conf/.credentials.json'] },
  codex: { home: '.codex/auth.json', overridden: [{ CODEX_HOME: 'ch' }, 'ch/auth.json'] },
  gemini: { home: '.gemini/oauth_creds.json', overridden: [{ GEMINI_CLI_HOME: 'gh' }, 'gh/.gemini/oauth_creds.json'] },
  opencode: { home: '.local/share/opencode/auth.json', overridden: [{ XDG_DATA_HOME: 'data' }, 'data/opencode/auth.json'] },
  kilo: { home: '.local/share/kilo/auth.json', overridden: [{ XDG_DATA_HOME: 'data' }, 'data/kilo/auth.json'] },
  qwen: { home: '.qwen/oauth_creds.json', overridden: [{ QWEN_HOME: 'qh' }, 'qh/oauth_creds.json'] },
  cline: { home: '.cline/data/settings/providers.json', overridden: [{ CLINE_DIR: 'cd' }, 'cd/data/settings/providers.json'] },
  pi: { home: '.pi/agent/auth.json', overridden: [{ PI_CODING_AGENT_DIR: 'agent' }, 'agent/auth.json'] },
};

const sessionClis = SESSION_CLI_IDS.filter((id) => (CLIS[id] as CliDefinition).auth !== undefined);

describe("the registry's auth entries, as missingCredentials reads them", () => {
  it('every session CLI has one, naming at least one key variable', () => {
    expect(sessionClis).toEqual(SESSION_CLI_IDS);
    for (const id of SESSION_CLI_IDS) expect((CLIS[id] as CliDefinition).auth?.keyVariables.length).toBeGreaterThan(0);
  });

  it.each(sessionClis)('%s: missing with nothing, present with any one of its key variables', (id) => {
    const auth = (CLIS[id] as CliDefinition).auth!;
    expect(missingCredentials(id, { HOME: home })).toMatch(new RegExp(`^${CLIS[id].name} is not logged in: .*${auth.keyVariables[0]}`));
    for (const variable of auth.keyVariables) expect(missingCredentials(id, { HOME: home, [variable]: 'a-key' })).toBeNull();
    // An empty variable is no key.
    expect(missingCredentials(id, { HOME: home, [auth.keyVariables[0]]: '' })).not.toBeNull();
  });

  it.each(Object.entries(LOGINS))("%s: its login's file, under HOME and under its own config-dir variable", (id, login) => {
    const provider = id as SessionProvider;
    write(join(home, login.home));
    expect(missingCredentials(provider, { HOME: home })).toBeNull();
    if (!login.overridden) return;
    const [variables, path] = login.overridden;
    const env = { HOME: home, ...Object.fromEntries(Object.entries(variables).map(([name, dir]) => [name, join(home, dir)])) };
    // The override moves the login: the file under HOME no longer counts.
    expect(missingCredentials(provider, env)).not.toBeNull();
    write(join(home, path));
    expect(missingCredentials(provider, env)).toBeNull();
  });

  it("Cline's data dir variable moves its providers.json out of its config dir", () => {
    const env = { HOME: home, CLINE_DATA_DIR: join(home, 'state') };
    write(join(home, '.cline', 'data', 'settings', 'providers.json'));
    expect(missingCredentials('cline', env)).not.toBeNull();
    write(join(home, 'state', 'settings', 'providers.json'));
    expect(missingCredentials('cline', env)).toBeNull();
  });

  it("Copilot's config.json, which it writes anyway, counts only with an account or a token in it", () => {
    const env = { HOME: home, COPILOT_HOME: join(home, 'copilot') };
    const config = join(home, 'copilot', 'config.json');
    // What 1.0.102 writes on its first launch, logged in or not.
    const header = '// User settings belong in settings.json.\n// This file is managed automatically.\n';
    write(config, `${header}{\n  "firstLaunchAt": "2026-12-07T19:26:30.373Z"\n}\n`);
    expect(missingCredentials('copilot', env)).toMatch(/COPILOT_GITHUB_TOKEN or GH_TOKEN or GITHUB_TOKEN.*`copilot login`/);
    write(config, `${header}{\n  "loggedInUsers": []\n}\n`);
    expect(missingCredentials('copilot', env)).not.toBeNull();
    write(config, `${header}{\n  "loggedInUsers": [\n    { "host": "https://github.com", "login": "someone" }\n  ]\n}\n`);
    expect(missingCredentials('copilot', env)).toBeNull();
    write(config, `${header}{ "copilotTokens": { "https://github.com:someone": "gho_x" } }`);
    expect(missingCredentials('copilot', env)).toBeNull();
  });

  it("Qwen Code's settings.json counts only with a key in it (what `qwen auth` saves for an API key)", () => {
    const settings = join(home, '.qwen', 'settings.json');
    write(settings, JSON.stringify({ security: { auth: { selectedType: 'openai' } } }));
    expect(missingCredentials('qwen', { HOME: home })).not.toBeNull();
    write(settings, JSON.stringify({ security: { auth: { selectedType: 'openai', apiKey: 'sk-x' } } }));
    expect(missingCredentials('qwen', { HOME: home })).toBeNull();
  });

  it('a login command where the CLI has one that can be launched: a terminal method; pi and Gemini CLI log in only inside their TUI', () => {
    const logins = Object.fromEntries(sessionClis.map((id) => [id, (CLIS[id] as CliDefinition).auth!.login]));
    expect(logins).toEqual({
      claude: ['auth', 'login'],
      codex: ['login'],
      gemini: null,
      opencode: ['auth', 'login'],
      qwen: ['auth'],
      copilot: ['login'],
      pi: null,
      kilo: ['auth', 'login'],
      cline: ['auth'],
    });
    expect(authMethods('kilo', true)[1]).toMatchObject({ type: 'terminal', description: 'Runs `kilo auth login` in a terminal.' });
    expect(authMethods('pi', true)).toHaveLength(1);
  });

  it('Cursor and Amp (decoded only, not run here): their documented key variables and login commands', () => {
    expect(CLIS.cursor.auth).toMatchObject({ keyVariables: ['CURSOR_API_KEY'], login: ['login'] });
    expect((CLIS.cursor as CliDefinition).auth?.loginFiles({ HOME: home })).toEqual([]);
    expect(CLIS.amp.auth).toMatchObject({ keyVariables: ['AMP_API_KEY'], login: ['login'] });
    expect(CLIS.amp.auth.loginFiles({ HOME: home })).toEqual([join(home, '.local', 'share', 'amp', 'secrets.json')]);
  });
});
