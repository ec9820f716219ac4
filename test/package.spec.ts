import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..');

describe('package build', () => {
  beforeAll(() => {
    execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'pipe' });
  }, 120_000);

  it('emits JavaScript and type declarations where package.json points', () => {
    const pkg = require(join(root, 'package.json'));
    expect(existsSync(join(root, pkg.exports['.'].default))).toBe(true);
    expect(existsSync(join(root, pkg.exports['.'].types))).toBe(true);
  });

  it('a consumer imports Event and ToolUsePayload by package name', () => {
    // Node resolves a package's own name through its "exports" map (self-reference).
    const script = `
      const { Event, ToolUsePayload } = require('cli-subprocess-core');
      const e = Event.create('tool_use', { payload: { tool_name: ' shell ' } });
      process.stdout.write(JSON.stringify([e.payload instanceof ToolUsePayload, e.payload.tool_name]));`;
    const out = execFileSync(process.execPath, ['-e', script], { cwd: root, encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual([true, 'shell']);
  });
});
