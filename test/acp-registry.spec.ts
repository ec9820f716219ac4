/*
 * The ACP registry entry (acp-registry/cli-subprocess-core/): what the registry's CI checks of an
 * `agent.json` and its icon (agentclientprotocol/registry: agent.schema.json, CONTRIBUTING.md),
 * and that the command it names is this package's own. That the command, installed from the
 * packed tarball, answers the registry's auth check is in pack.spec.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from '../src/cli/args';
import { packageVersion } from '../src/cli/package-version';

const ENTRY = join(__dirname, '..', 'acp-registry', 'cli-subprocess-core');
const agent = JSON.parse(readFileSync(join(ENTRY, 'agent.json'), 'utf8')) as Record<string, any>;
const pkg = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { name: string; version: string; license: string };

describe('the ACP registry entry', () => {
  it('has the fields the registry schema requires, in their forms, and none it does not know', () => {
    const known = [
      'id',
      'name',
      'version',
      'description',
      'repository',
      'website',
      'authors',
      'license',
      'license_url',
      'icon',
      'distribution',
    ];
    expect(Object.keys(agent).filter((key) => !known.includes(key))).toEqual([]);
    expect(agent.id).toMatch(/^[a-z][a-z0-9-]*$/);
    expect(agent.name.length).toBeGreaterThan(0);
    expect(agent.version).toMatch(/^[0-9]+\.[0-9]+\.[0-9]+/);
    expect(agent.description.length).toBeGreaterThan(0);
    expect(Object.keys(agent.distribution)).toEqual(['npx']);
    expect(Object.keys(agent.distribution.npx).sort()).toEqual(['args', 'package']);
    expect(agent.distribution.npx.args.every((arg: unknown) => typeof arg === 'string')).toBe(true);
  });

  it('sits in the folder its id names, and names this package at its version and license', () => {
    expect(ENTRY.endsWith(join('acp-registry', agent.id))).toBe(true);
    expect(agent.version).toBe(pkg.version);
    expect(agent.distribution.npx.package).toBe(`${pkg.name}@${pkg.version}`);
    expect(agent.license).toBe(pkg.license);
  });

  it("the agent's version (initialize's agentInfo) is the package's, the one the entry names; '0' outside any", () => {
    expect(packageVersion()).toBe(agent.version);
    expect(packageVersion(join(__dirname, '..', 'src', 'cli'))).toBe(pkg.version);
    expect(packageVersion('/')).toBe('0');
  });

  it('launches the `acp` command with no provider: one agent for every CLI, the CLI chosen per session', () => {
    const command = parseArgs(agent.distribution.npx.args);
    expect(command).toMatchObject({ name: 'acp' });
    expect((command as { options: { provider?: string } }).options.provider).toBeUndefined();
  });

  it('has the icon the registry requires: a 16×16 SVG in currentColor, no colour of its own', () => {
    const svg = readFileSync(join(ENTRY, 'icon.svg'), 'utf8');
    expect(svg).toMatch(/<svg[^>]*\bwidth="16"[^>]*\bheight="16"/);
    expect(svg).toContain('currentColor');
    const paints = [...svg.matchAll(/\b(?:fill|stroke)="([^"]*)"/g)].map((match) => match[1]);
    expect(paints.filter((paint) => paint !== 'currentColor' && paint !== 'none')).toEqual([]);
  });
});
