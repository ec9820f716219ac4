import { spawnSync } from 'node:child_process';
import { join, sep } from 'node:path';
import { genaiPriceTable } from '../../src/spend/price-table';
import { usageFigures } from '../../src/providers/usage';
import { modulesOfRootAndRun } from '../terminal-output';

/*
 * The price table for CLIs that report no price (@pydantic/genai-prices' embedded copy, no network),
 * and the import cost of the package root: neither the table nor the usage code loads with it.
 */

const root = join(__dirname, '..', '..');

describe('the price table', () => {
  const table = genaiPriceTable();
  const figures = usageFigures({ input_tokens: 1_000_000, output_tokens: 1_000_000 });
  const when = new Date('2026-12-07T12:00:00Z');

  it('prices the models the pinned CLIs default to, and names its version', () => {
    expect(table.version).toMatch(/^@pydantic\/genai-prices \d+\.\d+\.\d+$/);
    for (const model of ['claude-opus-5-5', 'claude-sonnet-4-5', 'gpt-5', 'gpt-5.5', 'gemini-2.5-pro'])
      expect(table.price(model, figures, when)).toBeGreaterThan(0);
  });

  it('prices cache reads below fresh input (the input counts the cache in, as the usage rules do)', () => {
    const fresh = table.price('claude-sonnet-4-5', usageFigures({ input_tokens: 1_000_000 }), when) as number;
    const cached = table.price(
      'claude-sonnet-4-5',
      usageFigures({ input_tokens: 1_000_000, cache_read_input_tokens: 1_000_000 }),
      when,
    ) as number;
    expect(cached).toBeGreaterThan(0);
    expect(cached).toBeLessThan(fresh / 5);
  });

  it('reads provider/model names (OpenCode\u2019s, pi\u2019s) as the model, and knows no made-up model', () => {
    expect(table.price('anthropic/claude-sonnet-4-5', figures, when)).toBe(table.price('claude-sonnet-4-5', figures, when));
    expect(table.price('fake-model', figures, when)).toBeNull();
    expect(table.price('fake/fake-model', figures, when)).toBeNull();
  });

  it('loads with no network: a process without fetch and sockets still prices', () => {
    const script = `
      globalThis.fetch = () => { throw new Error('network used'); };
      require('net').connect = () => { throw new Error('network used'); };
      const { genaiPriceTable } = require('./src/spend/price-table');
      console.log(genaiPriceTable().price('gpt-5', { input_tokens: 1000000, output_tokens: 0, cache_read_input_tokens: 0, cache_write_input_tokens: 0, reasoning_output_tokens: 0, cost_usd: null }, new Date()));`;
    const result = spawnSync(process.execPath, ['-r', 'ts-node/register/transpile-only', '-e', script], { cwd: root, encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(Number(result.stdout)).toBeGreaterThan(0);
  });
});

describe('the package root', () => {
  it('loads none of the usage code, the price table or the table renderer (nor does the command line until asked)', () => {
    const { loaded, stderr } = modulesOfRootAndRun();
    expect(stderr).toBe('');
    expect(loaded.some((path) => path.endsWith(join('src', 'index.ts')))).toBe(true);
    const heavy = loaded.filter(
      (path) =>
        path.includes(`${sep}genai-prices${sep}`) ||
        path.startsWith(join(root, 'src', 'spend') + sep) ||
        path.endsWith(join('src', 'terminal', 'table.ts')) ||
        path.endsWith(join('src', 'cli', 'usage-command.ts')) ||
        path.endsWith(join('src', 'cli', 'history-command.ts')),
    );
    expect(heavy).toEqual([]);
    // The check would see them: asking for usage loads them.
    const usage = spawnSync(
      process.execPath,
      [
        '-r',
        'ts-node/register/transpile-only',
        '-e',
        `require('./src/spend/price-table'); console.log(JSON.stringify(Object.keys(require.cache)));`,
      ],
      { cwd: root, encoding: 'utf8' },
    );
    expect((JSON.parse(usage.stdout) as string[]).some((path) => path.includes(`${sep}genai-prices${sep}`))).toBe(true);
  });
});
