import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { calcPrice } from '@pydantic/genai-prices';
import type { UsageFigures } from '../providers/usage';

/** Prices tokens a CLI reported no price for. */
export interface PriceTable {
  /** What the prices are (a cache of computed prices is kept only under the same one). */
  readonly version: string;
  /** The price in USD of `figures` spent by `model` at `when`, or null when the table does not know the model. */
  price(model: string, figures: UsageFigures, when: Date): number | null;
}

/**
 * The price table of `@pydantic/genai-prices`: its embedded copy (the package asks the network only
 * when `updatePrices` is called, which is never done here). A model named `provider/model` (OpenCode's,
 * pi's) is looked up whole, then as the model of that provider, then as the model alone.
 */
export function genaiPriceTable(): PriceTable {
  const known = new Map<string, boolean>();
  return {
    version: `@pydantic/genai-prices ${packageVersion()}`,
    price(model, figures, when) {
      if (known.get(model) === false) return null;
      const usage = {
        input_tokens: figures.input_tokens,
        cache_read_tokens: figures.cache_read_input_tokens,
        cache_write_tokens: figures.cache_write_input_tokens,
        output_tokens: figures.output_tokens,
      };
      const slash = model.indexOf('/');
      const name = model.slice(model.lastIndexOf('/') + 1);
      const tries: [string, string | undefined][] = [[model, undefined]];
      if (slash > 0) tries.push([name, model.slice(0, slash)], [name, undefined]);
      for (const [id, providerId] of tries) {
        const result = calculate(usage, id, providerId, when);
        if (result !== null) {
          known.set(model, true);
          return result;
        }
      }
      known.set(model, false);
      return null;
    },
  };
}

/** The table's price, or null: a model it does not know, or figures it refuses (a cache larger than the input). */
function calculate(usage: Record<string, number>, model: string, providerId: string | undefined, when: Date): number | null {
  try {
    return calcPrice(usage, model, { providerId, timestamp: when })?.total_price ?? null;
  } catch {
    return null;
  }
}

/** The package's version, from its package.json (not among its exports: read beside its entry point). */
function packageVersion(): string {
  try {
    const main = require.resolve('@pydantic/genai-prices');
    const text = readFileSync(join(dirname(main), '..', 'package.json'), 'utf8');
    return String((JSON.parse(text) as { version?: unknown }).version ?? 'unknown');
  } catch {
    return 'unknown';
  }
}
