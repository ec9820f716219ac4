/*
 * The README's CLI × capability table, generated from the CLI registry (src/clis) and the e2e pins
 * (e2e/package.json; the newest releases the real-CLI suite passed with, e2e/latest-passed.json,
 * written by `npm run test:latest`). `npm run matrix` prints it; `npm run matrix -- --write`
 * rewrites it in README.md between its markers. test/clis/capability-matrix.spec.ts fails when the
 * README and the registry disagree.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI_IDS, CLIS, isCliId, SESSION_CLI_IDS, type CliDefinition } from '../src/clis';
import { modelSwitch } from '../src/projections/acp/config-options';

const ROOT = join(__dirname, '..');
export const README = join(ROOT, 'README.md');
export const START = '<!-- capability-matrix:start -->';
export const END = '<!-- capability-matrix:end -->';

/** The versions of one CLI the real-CLI suite ran. */
interface Versions {
  readonly pinned: string | null;
  readonly newestPassed: string | null;
}

function readJson(path: string): Record<string, unknown> {
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>) : {};
}

function versionsOf(cli: CliDefinition): Versions {
  const pins = (readJson(join(ROOT, 'e2e', 'package.json')).dependencies ?? {}) as Record<string, string>;
  const passed = readJson(join(ROOT, 'e2e', 'latest-passed.json')) as Record<string, { version?: string }>;
  const name = cli.npmPackage;
  return { pinned: name ? (pins[name] ?? null) : null, newestPassed: name ? (passed[name]?.version ?? null) : null };
}

const yes = (value: boolean): string => (value ? 'yes' : '—');

function resumeOf(cli: CliDefinition): string {
  const ways = [cli.run && cli.run.resume !== null ? 'run' : null, cli.session && cli.session.resume !== null ? 'session' : null].filter(
    (way) => way !== null,
  );
  return ways.length === 0 ? '—' : ways.join(', ');
}

/** How a session's model is switched (the ACP agent's `model` option, `Session.setModel`). */
function modelSwitchOf(id: string): string {
  const way = isCliId(id, SESSION_CLI_IDS) ? modelSwitch(id) : null;
  return way === 'running' ? 'in session' : way === 'resume' ? 'next turn (resume)' : '—';
}

/** The table, as Markdown. */
export function capabilityMatrix(): string {
  const rows = CLI_IDS.map((id) => {
    const cli: CliDefinition = CLIS[id];
    const { pinned, newestPassed } = versionsOf(cli);
    const session = cli.session !== undefined;
    return [
      `${cli.name} (\`${id}\`)`,
      yes(cli.decode !== undefined),
      yes(cli.run !== undefined),
      session ? cli.session.protocolName : '—',
      resumeOf(cli),
      yes(session),
      yes(session),
      modelSwitchOf(id),
      // The kinds of MCP server a session takes (`SessionOptions.mcpServers`, the ACP agent's `mcpServers`).
      session ? (cli.session.mcpServers?.kinds.join(', ') ?? '—') : '—',
      pinned ?? '—',
      newestPassed ?? '—',
    ];
  });
  const head = [
    'CLI',
    'decode',
    'run',
    'session',
    'resume',
    'approvals',
    'interrupt',
    'model switch',
    'MCP servers',
    'pinned (e2e)',
    'newest passed',
  ];
  return [head, head.map(() => '---'), ...rows].map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}

/** The table as README.md holds it between its markers (null when the markers are missing). */
export function readmeMatrix(readme = readFileSync(README, 'utf8')): string | null {
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  return start === -1 || end < start ? null : readme.slice(start + START.length, end).trim();
}

function main(): void {
  const table = capabilityMatrix();
  if (!process.argv.includes('--write')) {
    process.stdout.write(`${table}\n`);
    return;
  }
  const readme = readFileSync(README, 'utf8');
  if (readmeMatrix(readme) === null) throw new Error(`README.md has no ${START} … ${END} block`);
  writeFileSync(README, `${readme.slice(0, readme.indexOf(START) + START.length)}\n${table}\n${readme.slice(readme.indexOf(END))}`);
}

if (require.main === module) main();
