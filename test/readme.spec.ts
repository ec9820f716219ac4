import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ERROR_CODES, KINDS, PAYLOAD_CLASSES } from '../src';
import { parseArgs } from '../src/cli/args';
import { chatArgs } from '../src/cli/chat-command';
import { historyArgs } from '../src/cli/history-command';
import { usageArgs } from '../src/cli/usage-command';

const OWN_PARSERS: Record<string, (argv: readonly string[]) => unknown> = { chat: chatArgs, history: historyArgs, usage: usageArgs };

/*
 * The README is the front door and docs/ holds the reference: every example shown in either is the
 * real one (verbatim, or the lines of its file in order), and every table says what the code does.
 */
const root = join(__dirname, '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const readme = read('README.md');
const docPaths = readdirSync(join(root, 'docs'))
  .filter((name) => name.endsWith('.md'))
  .map((name) => `docs/${name}`);
const doc = (name: string) => read(`docs/${name}`);

/** An example file as the docs show it: imported from the package, not from the source tree. */
const asPublished = (path: string) =>
  read(path).replace("from '../src/nest'", "from 'cli-subprocess-core/nest'").replace("from '../src'", "from 'cli-subprocess-core'");

/** Every "The heart of [`examples/x.ts`]…```ts" block of a page: the file and the block's code lines. */
function hearts(page: string): { file: string; lines: string[] }[] {
  return [...page.matchAll(/The\s+heart\s+of\s+\[`(examples\/[\w.-]+\.ts)`\][\s\S]*?```ts\n([\s\S]*?)```/g)].map((m) => ({
    file: m[1],
    lines: m[2]
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '' && !line.startsWith('import ')),
  }));
}

/** Each line of `lines` is a line of `file` (trimmed), in the file's order. */
function expectLinesInOrder(file: string, lines: string[]): void {
  const example = read(file)
    .split('\n')
    .map((line) => line.trim());
  let at = 0;
  for (const line of lines) {
    const found = example.indexOf(line, at);
    expect({ file, line, found: found >= 0 }).toEqual({ file, line, found: true });
    at = found + 1;
  }
}

/** GitHub's heading anchors of a markdown page (outside code blocks; a repeated heading gets -1, -2, …). */
function anchors(page: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  let fenced = false;
  for (const line of page.split('\n')) {
    if (line.trimStart().startsWith('```')) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6} (.*)$/.exec(line);
    if (!heading) continue;
    const slug = heading[1]
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    result.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return result;
}

/** The relative link targets of a markdown page (outside code blocks and code spans). */
function relativeLinks(page: string): string[] {
  const links: string[] = [];
  let fenced = false;
  for (const line of page.split('\n')) {
    if (line.trimStart().startsWith('```')) fenced = !fenced;
    if (fenced) continue;
    for (const m of line.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)\)/g)) if (!/^[a-z]+:/i.test(m[1])) links.push(m[1]);
  }
  return links;
}

describe('README', () => {
  it('is a front door: at most 400 lines', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(400);
  });

  it('names the main job command, a script that decodes the bundled real Claude Code transcript', () => {
    const pkg = JSON.parse(read('package.json'));
    expect(readme).toMatch(/^npm ci && npm run demo +# the main job/m);
    expect(pkg.scripts.demo).toContain(`node ${pkg.bin['cli-subprocess-core']} decode --provider claude examples/claude-tool-run.jsonl`);
  });

  it('names the test command a fresh machine runs, which does its own set-up, and which .ci/run runs', () => {
    const pkg = JSON.parse(read('package.json'));
    const testAll = read('scripts/test-all.sh');
    expect(pkg.scripts['test:all']).toBe('bash scripts/test-all.sh');
    expect(read('.ci/run')).toContain('scripts/test-all.sh');
    expect(testAll).toMatch(/^npm ci /m);
    expect(testAll).toMatch(/^npm install --prefix e2e/m);
    expect(testAll).toMatch(/^npm test$/m);
    expect(readme).toMatch(/^npm run test:all +# /m);
  });

  it('shows the heart of each example it links, as the example files have them: their lines, in order', () => {
    const shown = hearts(readme);
    expect(shown.map((heart) => heart.file)).toEqual([
      'examples/decode.ts',
      'examples/run.ts',
      'examples/session.ts',
      'examples/nest-chat.ts',
      'examples/queue-chat-node.ts',
      'examples/nest-runs.ts',
    ]);
    for (const { file, lines } of shown) {
      expect({ file, lines: lines.length >= 5 }).toEqual({ file, lines: true });
      expectLinesInOrder(file, lines);
    }
  });

  it('shows a chat screen as e2e/test/chat.spec.ts captured it (docs/chat-screens/claude.txt), its lines in order', () => {
    const block = /The real Claude Code in tmux[^\n]*\n\n```text\n([\s\S]*?)```/.exec(readme)?.[1];
    const lines = (block ?? '').split('\n').map((line) => line.trim());
    expect(lines.length).toBeGreaterThanOrEqual(10);
    expectLinesInOrder('docs/chat-screens/claude.txt', lines);
  });

  it('shows commands the cli-subprocess-core command accepts', () => {
    const commands = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)]
      .flatMap((block) => block[1].split('\n'))
      .map((line) => /(?:^|\| |npx |… )cli-subprocess-core (.*)$/.exec(line)?.[1])
      .filter((command): command is string => command !== undefined);
    expect(commands.length).toBeGreaterThanOrEqual(5);
    for (const command of commands) {
      const argv = [...command.replace(/\s+#.*$/, '').matchAll(/'([^']*)'|(\S+)/g)]
        .map((m) => m[1] ?? m[2])
        // The reader's directories: any existing one stands in.
        .map((arg, i, all) => (all[i - 1] === '--cwd' ? root : arg));
      // chat, history and usage read their own options (loaded only when asked for: src/cli/run.ts).
      const parse = OWN_PARSERS[argv[0]];
      expect(() => (parse ? parse(argv.slice(1)) : parseArgs(argv))).not.toThrow();
    }
  });
});

describe('docs', () => {
  it('every relative link of the README and of docs/*.md points to a file that exists, and to a heading it has', () => {
    const broken: string[] = [];
    for (const path of ['README.md', ...docPaths]) {
      for (const link of relativeLinks(read(path))) {
        const [file, anchor] = link.split('#');
        const target = file === '' ? path : join(dirname(path), file);
        if (!existsSync(join(root, target))) broken.push(`${path}: ${link} (no file)`);
        else if (anchor !== undefined && target.endsWith('.md') && !anchors(read(target)).has(anchor))
          broken.push(`${path}: ${link} (no heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('the index lists every page', () => {
    const index = doc('README.md');
    for (const path of docPaths.filter((path) => path !== 'docs/README.md')) expect(index).toContain(`](${path.slice('docs/'.length)})`);
  });

  it('event-model.md lists every kind with its payload class, in order', () => {
    const rows = [...doc('event-model.md').matchAll(/^\| `([a-z_]+)` \| `(\w+Payload)` \|/gm)].map((m) => [m[1], m[2]]);
    expect(rows).toEqual(KINDS.map((kind) => [kind, PAYLOAD_CLASSES[kind].name]));
  });

  it('decoding.md lists exactly the error codes of ERROR_CODES in its "Errors" paragraph', () => {
    const paragraph = /\*\*Errors\*\*[\s\S]*?`ERROR_CODES` lists them/.exec(doc('decoding.md'))?.[0] ?? '';
    // The paragraph names one field beside the codes: the error's `message`.
    const listed = new Set([...paragraph.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]).filter((word) => word !== 'message'));
    expect([...listed].sort()).toEqual([...ERROR_CODES].sort());
  });

  it('event-model.md shows the runnable example verbatim', () => {
    expect(doc('event-model.md')).toContain(asPublished('examples/tool-use.ts'));
  });

  it('decoding.md shows the decoding example verbatim', () => {
    expect(doc('decoding.md')).toContain(asPublished('examples/decode.ts'));
  });

  it('nest.md shows the NestJS server-sent events example verbatim', () => {
    expect(doc('nest.md')).toContain(asPublished('examples/nest-sse.ts').trim());
  });

  it('nest.md shows the NestJS sessions example verbatim', () => {
    expect(doc('nest.md')).toContain(asPublished('examples/nest-sessions.ts').trim());
  });

  it('shows the heart of each example as the example files have them: their lines, in order', () => {
    const shown = docPaths.flatMap((path) => hearts(read(path)).map((heart) => ({ ...heart, path })));
    expect(shown.map(({ path, file }) => `${path}: ${file}`)).toEqual(
      expect.arrayContaining(['docs/running.md: examples/run.ts', 'docs/sessions.md: examples/session.ts']),
    );
    for (const { file, lines } of shown) expectLinesInOrder(file, lines);
    expect(shown.find((heart) => heart.file === 'examples/session.ts')?.lines.length).toBeGreaterThan(10);
  });

  it('sessions.md lists every session CLI in the sessions table', () => {
    for (const name of ['Claude Code', 'Codex', 'Gemini CLI', 'OpenCode', 'Qwen Code', 'Copilot CLI'])
      expect(doc('sessions.md')).toMatch(new RegExp(`^\\| ${name} \\| .*\\|$`, 'm'));
  });

  it('projections.md shows the useChat back end example verbatim', () => {
    expect(doc('projections.md')).toContain(asPublished('examples/nest-chat.ts').trim());
  });

  it('projections.md shows the useChat-over-the-queue examples verbatim', () => {
    expect(doc('projections.md')).toContain(asPublished('examples/queue-chat.ts').trim());
    expect(doc('projections.md')).toContain(asPublished('examples/nest-queue-chat.ts').trim());
  });

  it('runs-api.md shows the queued-runs Nest example verbatim, and the page screenshot it links exists', () => {
    const page = doc('runs-api.md');
    expect(page).toContain(asPublished('examples/nest-runs.ts').trim());
    expect(page).toContain('](runs-page.png)');
    expect(existsSync(join(root, 'docs/runs-page.png'))).toBe(true);
  });
});
