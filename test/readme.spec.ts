import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KINDS, PAYLOAD_CLASSES } from '../src';

const root = join(__dirname, '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');

describe('README', () => {
  it('lists every kind with its payload class, in order', () => {
    const rows = [...readme.matchAll(/^\| `([a-z_]+)` \| `(\w+Payload)` \|/gm)].map((m) => [m[1], m[2]]);
    expect(rows).toEqual(KINDS.map((kind) => [kind, PAYLOAD_CLASSES[kind].name]));
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
    const example = readFileSync(join(root, 'examples/nest-sse.ts'), 'utf8').replace("from '../src/nest'", "from 'cli-subprocess-core/nest'");
    expect(readme).toContain(example.trim());
  });

  it('names the test command that .ci/run runs', () => {
    const ci = readFileSync(join(root, '.ci/run'), 'utf8');
    expect(ci).toContain('npm ci');
    expect(ci).toMatch(/^npm ci --prefix e2e/m);
    expect(ci).toMatch(/^npm test$/m);
    expect(readme).toContain('npm ci && npm ci --prefix e2e && npm test');
  });

  it('names the main job command, a script that decodes the bundled real Claude Code transcript', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    expect(readme).toMatch(/^npm ci && npm run demo +# the main job/m);
    expect(pkg.scripts.demo).toContain(`node ${pkg.bin['cli-subprocess-core']} decode --provider claude examples/claude-tool-run.jsonl`);
  });
});
