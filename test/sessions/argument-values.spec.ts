import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchOptions, runOptions } from '../../src/cli/run-args';
import { UsageError } from '../../src/cli/usage-error';
import { CLIS, SESSION_CLI_IDS } from '../../src/clis';
import { sessionArgv } from '../../src/sessions/session-argv';
import { startSession } from '../../src/sessions/session';

/*
 * The finding: a request's model `--mcp-config={…}` reached Qwen Code's argv after `--model`, where
 * yargs read it as a flag of its own (an MCP server, so a shell command). Sessions take a model and
 * a resume id by flag or by protocol; either way, one that reads as a flag is refused.
 */

const PROVIDERS = SESSION_CLI_IDS;
const FLAG_LIKE = [
  '--mcp-config={"mcpServers":{"x":{"command":"sh","args":["-c","touch /tmp/pwned"]}}}',
  '--yolo',
  '-m',
  'qwen3-coder-plus\n--yolo',
  'qwen3-coder-plus\0',
];
const ORDINARY = ['gpt-4o', 'claude-sonnet-4-5', 'qwen3-coder-plus', 'models/gemini-2.5-pro', 'openai/gpt-4.1'];
const cases = PROVIDERS.flatMap((provider) => FLAG_LIKE.map((value) => [provider, value] as const));
const refusal = (what: string, value: string) =>
  new TypeError(`${what} must not start with "-" or hold control characters (it would be read as a flag): got ${JSON.stringify(value)}`);

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'argument-values-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("a request's model never becomes a CLI flag", () => {
  it.each(cases)('%s: sessionArgv refuses the model %j (Codex too, whose protocol sets the model)', (provider, model) => {
    expect(() => sessionArgv(provider, CLIS[provider].session, model, undefined)).toThrow(refusal('model', model));
  });

  it.each(cases)('%s: sessionArgv refuses the resume id %j', (provider, resume) => {
    expect(() => sessionArgv(provider, CLIS[provider].session, undefined, resume)).toThrow(refusal('resume', resume));
  });

  it.each(cases)('%s: startSession refuses the model %j before it starts anything', (provider, model) => {
    // The executable exists (this test's runtime): only the model can be what is refused.
    expect(() => startSession({ provider, model, executable: process.execPath, cwd: dir })).toThrow(refusal('model', model));
  });

  it.each(PROVIDERS.filter((provider) => CLIS[provider].session.model !== null))('%s: ordinary models still pass', (provider) => {
    const cli = CLIS[provider].session;
    for (const model of ORDINARY) {
      const argv = sessionArgv(provider, cli, model, undefined);
      // Codex takes the model in `thread/start`, not in its argv.
      if (cli.model === 'protocol') expect(argv).toEqual(cli.args);
      else expect(argv.slice(cli.args.length)).toEqual(['--model', model]);
    }
  });

  it('ordinary session ids still pass', () => {
    expect(sessionArgv('claude', CLIS.claude.session, undefined, '0b9e7c1a-58f3-4c1e-9a57-1f0e2d3c4b5a')).toEqual([
      ...CLIS.claude.session.args,
      '--resume',
      '0b9e7c1a-58f3-4c1e-9a57-1f0e2d3c4b5a',
    ]);
  });

  // `launchOptions` reads --model for run, session and acp alike (parseArgs gives it `--model=-m` as `-m` too).
  it('the run, session and acp commands: a flag-like --model is a usage error before any CLI starts', () => {
    for (const model of ['--yolo', '-m', 'x\ty']) {
      expect(() =>
        runOptions(
          new Map([
            ['--provider', 'claude'],
            ['--model', model],
          ]),
          ['hi'],
        ),
      ).toThrow(UsageError);
      expect(() => launchOptions(new Map([['--model', model]]), {})).toThrow(UsageError);
    }
    expect(() => launchOptions(new Map([['--model', '--yolo']]), {})).toThrow(
      '--model must not start with "-" or hold control characters (it would be read as a flag): got "--yolo"',
    );
    const options: { model?: string } = {};
    launchOptions(new Map([['--model', 'openai/gpt-4.1']]), options);
    expect(options.model).toBe('openai/gpt-4.1');
  });
});
