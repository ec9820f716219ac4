import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { buildCopy, runNode } from './build-copy';

/** Every file path named by an exports map, through all its conditions. */
function targets(node: unknown): string[] {
  if (typeof node === 'string') return [node];
  return Object.values(node as Record<string, unknown>).flatMap(targets);
}

describe('package build (npm run build)', () => {
  let dir: string;
  let pkg: Record<string, any>;
  beforeAll(() => {
    dir = buildCopy();
    pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('emits every file that main, types, exports and typesVersions name', () => {
    const named = [pkg.main, pkg.types, ...targets(pkg.exports), ...targets(pkg.typesVersions)];
    expect(named).toEqual(expect.arrayContaining(['./dist/cjs/index.js', './dist/esm/index.mjs', './dist/esm/nest/index.d.mts']));
    for (const file of named) expect([file, existsSync(join(dir, file))]).toEqual([file, true]);
  });

  it('declares the decorator and reflect-metadata side effects (not sideEffects: false)', () => {
    expect(pkg.sideEffects).toBe(true);
  });

  it('a consumer requires Event and ToolUsePayload by package name', () => {
    // Node resolves a package's own name through its "exports" map (self-reference).
    const script = `
      const { Event, ToolUsePayload } = require('cli-subprocess-core');
      const e = Event.create('tool_use', { payload: { tool_name: ' shell ' } });
      process.stdout.write(JSON.stringify([e.payload instanceof ToolUsePayload, e.payload.tool_name]));`;
    expect(runNode(dir, script)).toEqual([true, 'shell']);
  });

  it('import and require give the same exports and the same classes (one copy of the metadata)', () => {
    const script = `
      import * as esm from 'cli-subprocess-core';
      import * as esmNest from 'cli-subprocess-core/nest';
      import { createRequire } from 'node:module';
      const require = createRequire(import.meta.url);
      const cjs = require('cli-subprocess-core');
      const cjsNest = require('cli-subprocess-core/nest');
      const names = (m) => Object.keys(m).filter((k) => k !== 'default' && k !== '__esModule').sort();
      process.stdout.write(JSON.stringify({
        root: [names(esm), names(cjs)],
        nest: [names(esmNest), names(cjsNest)],
        sameEvent: esm.Event === cjs.Event,
        sameModule: esmNest.CliSubprocessCoreModule === cjsNest.CliSubprocessCoreModule,
      }));`;
    const out = runNode(dir, script, true) as { root: string[][]; nest: string[][]; sameEvent: boolean; sameModule: boolean };
    expect(out.root[0]).toEqual(out.root[1]);
    expect(out.root[0]).toEqual(expect.arrayContaining(['Event', 'Registry', 'SchemaError', 'ToolUsePayload']));
    expect(out.nest[0]).toEqual(out.nest[1]);
    expect(out.nest[0]).toEqual(expect.arrayContaining(['CliSubprocessCoreModule', 'EventParser', 'ParseEventPipe', 'ParsePayloadPipe']));
    expect(out.sameEvent).toBe(true);
    expect(out.sameModule).toBe(true);
  });

  it('the root entry loads nothing from NestJS; /nest does', () => {
    const script = `
      const loaded = () => Object.keys(require.cache).some((file) => file.includes('@nestjs'));
      require('cli-subprocess-core');
      const root = loaded();
      require('cli-subprocess-core/nest');
      process.stdout.write(JSON.stringify([root, loaded()]));`;
    expect(runNode(dir, script)).toEqual([false, true]);
  });

  it('npm run docs builds the API docs without errors, covering the root and /nest', () => {
    const out = execFileSync('npm', ['run', 'docs', '--silent', '--', '--out', 'docs-check'], {
      cwd: dir,
      encoding: 'utf8',
      stdio: 'pipe',
    });
    expect(out).toMatch(/html generated/);
    for (const page of ['classes/index.Event.html', 'classes/nest.ParseEventPipe.html', 'classes/nest.EventParser.html']) {
      expect([page, existsSync(join(dir, 'docs-check', page))]).toEqual([page, true]);
    }
  }, 120_000);
});
