import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERROR_CODES, KINDS, PAYLOAD_CLASSES } from '../src';

const root = join(__dirname, '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');

describe('README', () => {
  it('lists every kind with its payload class, in order', () => {
    const rows = [...readme.matchAll(/^\| `([a-z_]+)` \| `(\w+Payload)` \|/gm)].map((m) => [m[1], m[2]]);
    expect(rows).toEqual(KINDS.map((kind) => [kind, PAYLOAD_CLASSES[kind].name]));
  });

  it('lists exactly the error codes of ERROR_CODES in its "Errors" paragraph', () => {
    const paragraph = /\*\*Errors\*\*[\s\S]*?`ERROR_CODES` lists them/.exec(readme)?.[0] ?? '';
    // The paragraph names one field beside the codes: the error's `message`.
    const listed = new Set([...paragraph.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]).filter((word) => word !== 'message'));
    expect([...listed].sort()).toEqual([...ERROR_CODES].sort());
  });

  it('shows the runnable example verbatim', () => {
    const example = readFileSync(join(root, 'examples/tool-use.ts'), 'utf8').replace("from '../src'", "from 'cli-subprocess-core'");
    expect(readme).toContain(example);
  });

  it('shows the decoding example verbatim', () => {
    const example = readFileSync(join(root, 'examples/decode.ts'), 'utf8').replace("from '../src'", "from 'cli-subprocess-core'");
    expect(readme).toContain(example);
  });

  it('shows the NestJS server-sent events example verbatim', () => {
    const example = readFileSync(join(root, 'examples/nest-sse.ts'), 'utf8').replace("from '../src/nest'", "from 'cli-subprocess-core/nest'").replace("from '../src'", "from 'cli-subprocess-core'");
    expect(readme).toContain(example.trim());
  });

  it('shows the NestJS sessions example verbatim', () => {
    const example = readFileSync(join(root, 'examples/nest-sessions.ts'), 'utf8').replace("from '../src/nest'", "from 'cli-subprocess-core/nest'").replace("from '../src'", "from 'cli-subprocess-core'");
    expect(readme).toContain(example.trim());
  });

  it('shows the heart of the session example as it is in examples/session.ts: its lines, in order', () => {
    const example = readFileSync(join(root, 'examples/session.ts'), 'utf8').split('\n').map((line) => line.trim());
    const block = /The heart of \[`examples\/session\.ts`\][\s\S]*?```ts\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    const lines = block.split('\n').map((line) => line.trim()).filter((line) => line !== '' && !line.startsWith('import '));
    expect(lines.length).toBeGreaterThan(10);
    let at = 0;
    for (const line of lines) {
      const found = example.indexOf(line, at);
      expect({ line, found: found >= 0 }).toEqual({ line, found: true });
      at = found + 1;
    }
  });

  it('lists every session CLI in the sessions table', () => {
    for (const name of ['Claude Code', 'Codex', 'Gemini CLI', 'OpenCode', 'Qwen Code', 'Copilot CLI']) expect(readme).toMatch(new RegExp(`^\\| ${name} \\| .*\\|$`, 'm'));
  });

  it('shows the useChat back end example verbatim', () => {
    const example = readFileSync(join(root, 'examples/nest-chat.ts'), 'utf8').replace("from '../src/nest'", "from 'cli-subprocess-core/nest'").replace("from '../src'", "from 'cli-subprocess-core'");
    expect(readme).toContain(example.trim());
  });

  it('shows the queued-runs Nest example verbatim, and the page screenshot it links exists', () => {
    const example = readFileSync(join(root, 'examples/nest-runs.ts'), 'utf8').replace("from '../src/nest'", "from 'cli-subprocess-core/nest'").replace("from '../src'", "from 'cli-subprocess-core'");
    expect(readme).toContain(example.trim());
    expect(readme).toContain('](docs/runs-page.png)');
    expect(existsSync(join(root, 'docs/runs-page.png'))).toBe(true);
  });

  it('names the test command that .ci/run runs, which does its own set-up', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    const ci = readFileSync(join(root, '.ci/run'), 'utf8');
    const testAll = readFileSync(join(root, 'scripts/test-all.sh'), 'utf8');
    expect(pkg.scripts['test:all']).toBe('bash scripts/test-all.sh');
    expect(ci).toContain('scripts/test-all.sh');
    expect(testAll).toMatch(/^npm ci /m);
    expect(testAll).toMatch(/^npm install --prefix e2e/m);
    expect(testAll).toMatch(/^npm test$/m);
    expect(readme).toMatch(/^npm run test:all +# /m);
  });

  it('names the main job command, a script that decodes the bundled real Claude Code transcript', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    expect(readme).toMatch(/^npm ci && npm run demo +# the main job/m);
    expect(pkg.scripts.demo).toContain(`node ${pkg.bin['cli-subprocess-core']} decode --provider claude examples/claude-tool-run.jsonl`);
  });
});
