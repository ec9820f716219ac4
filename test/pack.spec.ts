import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildCopy, repoRoot, runNode } from './build-copy';

/** `name@version` as installed in the repo, so the consumer's install is served from npm's cache. */
function installed(name: string): string {
  return `${name}@${JSON.parse(readFileSync(join(repoRoot, 'node_modules', name, 'package.json'), 'utf8')).version}`;
}

function run(command: string, args: string[], cwd: string): string {
  try {
    return execFileSync(command, args, { cwd, encoding: 'utf8', stdio: 'pipe' });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(' ')} failed:\n${stdout ?? ''}\n${stderr ?? ''}`);
  }
}

function npmInstall(cwd: string, specs: string[]): void {
  run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '--no-package-lock', ...specs], cwd);
}

const bin = (name: string) => join(repoRoot, 'node_modules/.bin', name);

describe('the packed tarball', () => {
  let dir: string;
  let tarball: string;
  let consumer: string;
  beforeAll(() => {
    dir = buildCopy();
    const [packed] = JSON.parse(run('npm', ['pack', '--ignore-scripts', '--json'], dir)) as { filename: string }[];
    tarball = join(dir, packed.filename);
    // Outside the build copy, whose linked node_modules would otherwise resolve everything.
    consumer = mkdtempSync(join(tmpdir(), 'cli-subprocess-core-consumer-'));
    writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
  }, 120_000);
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
    rmSync(consumer, { recursive: true, force: true });
  });

  it('ships the built files and no sources or tests', () => {
    const [{ files }] = JSON.parse(run('npm', ['pack', '--ignore-scripts', '--dry-run', '--json'], dir)) as { files: { path: string }[] }[];
    const paths = files.map((file) => file.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'package.json',
        'README.md',
        'dist/cjs/index.js',
        'dist/esm/nest/index.mjs',
        'dist/cjs/scale/page/page.html',
        'dist/cjs/scale/page/page.js',
      ]),
    );
    expect(paths.filter((path) => !path.startsWith('dist/') && !['package.json', 'README.md', 'LICENSE'].includes(path))).toEqual([]);
  });

  it('publint reports nothing', () => {
    expect(run(bin('publint'), ['run', tarball, '--strict'], dir)).toMatch(/All good!/);
  }, 60_000);

  it('arethetypeswrong reports no problems for any entry point or resolution mode', () => {
    expect(run(bin('attw'), [tarball, '--no-definitely-typed', '--format', 'ascii', '--no-emoji', '--no-color'], dir)).toMatch(
      /No problems found/,
    );
  }, 60_000);

  it('installs into a project without NestJS: the root works from require and import, /nest needs @nestjs/common', () => {
    npmInstall(consumer, [tarball, ...['class-validator', 'class-transformer', 'reflect-metadata'].map(installed)]);
    const cjs = `
      const { Event, ToolUsePayload } = require('cli-subprocess-core');
      const e = Event.fromJSON('{"kind":"tool_use","payload":{"tool_name":" shell ","server":"x"}}');
      let nest;
      try { require('cli-subprocess-core/nest'); nest = 'loaded'; } catch (error) { nest = error.code + ' ' + /@nestjs\\/common/.test(error.message); }
      process.stdout.write(JSON.stringify([e.payload instanceof ToolUsePayload, e.payload.tool_name, e.payload.extra, nest]));`;
    expect(runNode(consumer, cjs)).toEqual([true, 'shell', { server: 'x' }, 'MODULE_NOT_FOUND true']);
    const esm = `
      import { Event, ToolUsePayload } from 'cli-subprocess-core';
      const e = Event.create('tool_use', { payload: { tool_name: ' shell ' } });
      process.stdout.write(JSON.stringify([e.payload instanceof ToolUsePayload, e.payload.tool_name]));`;
    expect(runNode(consumer, esm, true)).toEqual([true, 'shell']);
  }, 120_000);

  it('installs the bin: the installed cli-subprocess-core command runs', () => {
    const schema = JSON.parse(run(join(consumer, 'node_modules/.bin/cli-subprocess-core'), ['schema', 'tool_use'], consumer));
    expect(schema).toMatchObject({ $schema: 'https://json-schema.org/draft/2020-12/schema', title: 'ToolUsePayload' });
  });

  it("the ACP registry's auth check on the command its entry names: isolated HOME, no CLI logged in, initialize answered with an agent auth method", () => {
    const entry = JSON.parse(readFileSync(join(repoRoot, 'acp-registry/cli-subprocess-core/agent.json'), 'utf8'));
    const home = mkdtempSync(join(tmpdir(), 'acp-auth-check-'));
    // What the registry's client.py passes on: PATH and a few system variables, a throwaway HOME, TERM=dumb.
    const script = `
      const { spawn } = require('node:child_process');
      const child = spawn(${JSON.stringify(join(consumer, 'node_modules/.bin/cli-subprocess-core'))}, ${JSON.stringify(entry.distribution.npx.args)},
        { cwd: ${JSON.stringify(home)}, env: { PATH: process.env.PATH, HOME: ${JSON.stringify(home)}, TERM: 'dumb' }, stdio: ['pipe', 'pipe', 'ignore'] });
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (chunk) => {
        out += chunk;
        if (!out.includes('\\n')) return;
        child.kill('SIGTERM');
        process.stdout.write(JSON.stringify(out.split('\\n')[0]));
      });
      child.on('exit', (code) => { if (!out.includes('\\n')) process.stdout.write(JSON.stringify('exited ' + code + ' before answering')); });
      child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1,
        clientInfo: { name: 'ACP Registry Validator', version: '1.0.0' },
        clientCapabilities: { terminal: true, fs: { readTextFile: true, writeTextFile: true }, _meta: { terminal_output: true, 'terminal-auth': true } } } }) + '\\n');`;
    try {
      const line = runNode(consumer, script) as string;
      // The first line is JSON-RPC (the registry fails an agent that prints anything else on stdout).
      const answer = JSON.parse(line) as { id: number; result: { authMethods: { type?: string }[] } };
      expect(answer).toMatchObject({
        id: 1,
        result: { protocolVersion: 1, agentInfo: { name: 'cli-subprocess-core', version: entry.version } },
      });
      expect(answer.result.authMethods.filter((method) => (method.type ?? 'agent') === 'agent').length).toBeGreaterThan(0);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('the installed package serves the runs page: its HTML with the CLIs, and every file it names', () => {
    const script = `
      const { createServer } = require('node:http');
      const { createRunsHandler, openRunStore } = require('cli-subprocess-core');
      const handle = createRunsHandler(openRunStore(), { token: 'a-token-of-sixteen-or-more' });
      const server = createServer((request, response) => void handle(request, response).then((handled) => handled || response.writeHead(404).end()));
      server.listen(0, '127.0.0.1', async () => {
        const base = 'http://127.0.0.1:' + server.address().port;
        const page = await fetch(base + '/');
        const html = await page.text();
        const named = [...html.matchAll(/<(?:script src|link rel="stylesheet" href)="([^"]+)"/g)].map((match) => match[1]);
        const files = [];
        for (const path of named) {
          const answer = await fetch(base + path);
          files.push([path, answer.status, (await answer.text()).length > 100]);
        }
        server.close();
        process.stdout.write(JSON.stringify({ status: page.status, claude: html.includes('<option value="claude">'), files }));
        // The store's expiry timer would keep the process alive.
        process.exit(0);
      });`;
    expect(runNode(consumer, script)).toEqual({
      status: 200,
      claude: true,
      files: [
        ['/page.css', 200, true],
        ['/text.js', 200, true],
        ['/page.js', 200, true],
      ],
    });
  });

  it('with @nestjs/common installed, /nest works from require and import', () => {
    npmInstall(consumer, [installed('@nestjs/common'), installed('rxjs')]);
    const cjs = `
      const { ParseEventPipe } = require('cli-subprocess-core/nest');
      const { Event } = require('cli-subprocess-core');
      const e = new ParseEventPipe().transform({ kind: 'stderr', payload: { content: ' x ' } });
      let status;
      try { new ParseEventPipe().transform({ kind: 'nope' }); } catch (error) { status = error.getStatus(); }
      process.stdout.write(JSON.stringify([e instanceof Event, e.payload.content, status]));`;
    expect(runNode(consumer, cjs)).toEqual([true, ' x ', 400]);
    const esm = `
      import { CliSubprocessCoreModule, EventParser } from 'cli-subprocess-core/nest';
      import { Registry } from 'cli-subprocess-core';
      const module = CliSubprocessCoreModule.forRoot();
      const event = new EventParser().fromJSON('{"kind":"thinking","payload":{"content":"hm"}}');
      process.stdout.write(JSON.stringify([module.module === CliSubprocessCoreModule, new EventParser().registry === Registry.default, event.kind]));`;
    expect(runNode(consumer, esm, true)).toEqual([true, true, 'thinking']);
  }, 120_000);

  it('a NestJS 11 app built with the starter tsconfig keeps the wire contract behind the global ValidationPipe and ClassSerializerInterceptor', () => {
    npmInstall(consumer, ['@nestjs/core', '@nestjs/platform-express', 'reflect-metadata', '@types/node'].map(installed));
    // test/nest/starter: the app of the starter-app test, importing the package instead of src/.
    const app = join(consumer, 'starter');
    mkdirSync(join(app, 'src'), { recursive: true });
    const starter = join(repoRoot, 'test/nest/starter');
    for (const name of ['app.ts', 'main.ts', 'claude-tool-use.payload.ts']) {
      const source = readFileSync(join(starter, name), 'utf8').replace(
        /'\.\.\/\.\.\/\.\.\/src(\/nest)?'/g,
        (_, nest = '') => `'cli-subprocess-core${nest}'`,
      );
      writeFileSync(join(app, 'src', name), source);
    }
    const tsconfig = JSON.parse(readFileSync(join(starter, 'tsconfig.json'), 'utf8'));
    writeFileSync(join(app, 'tsconfig.json'), JSON.stringify({ ...tsconfig, include: ['src'] }));
    run(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.json'], app);
    const { results, subclass } = JSON.parse(run(process.execPath, ['dist/main.js'], app)) as {
      results: [number, any][];
      subclass: string;
    };
    const [[eventStatus, event], [payloadStatus, payload], [lineStatus, line]] = results;
    expect([eventStatus, payloadStatus, lineStatus]).toEqual([201, 201, 400]);
    expect(event).toMatchObject({
      id: 7,
      kind: 'tool_use',
      timestamp: '2026-03-19T00:00:00.123456Z',
      payload: { tool_name: 'shell', server: 'x' },
      trace_id: 't',
    });
    expect(event).not.toHaveProperty('extra');
    expect(payload).toEqual({ tool_name: 'shell', tool_call_id: null, input: {}, metadata: {}, server: 'x' });
    expect(line).toMatchObject({ tag: 'invalid_event', issues: [{ code: 'invalid_enum', path: ['kind'] }] });
    expect(subclass).toMatch(/^ClaudeToolUsePayload\.server_name: compiled with useDefineForClassFields.*"useDefineForClassFields": false/);
  }, 180_000);
});
