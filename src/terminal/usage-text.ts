import type { UsageFigures } from '../providers/usage';
import type { Palette } from './style';

/** A count as people read it: `12,345`. */
export const count = (n: number): string => n.toLocaleString('en-US');

/** `432 in / 28 out tokens`, and `cache 128 read, 64 write` when the input had cached parts. */
export function tokens(total: UsageFigures): string[] {
  const cache = [
    total.cache_read_input_tokens > 0 ? `${count(total.cache_read_input_tokens)} read` : '',
    total.cache_write_input_tokens > 0 ? `${count(total.cache_write_input_tokens)} write` : '',
  ].filter((part) => part !== '');
  const inOut = `${count(total.input_tokens)} in / ${count(total.output_tokens)} out tokens`;
  return cache.length > 0 ? [inOut, `cache ${cache.join(', ')}`] : [inOut];
}

/** `$0.0019`, `$1.25`, `$0.00`: four decimals under a cent, so a short run's cost is not $0.00. */
export function cost(usd: number): string {
  return `$${usd !== 0 && usd < 0.01 ? usd.toFixed(4) : usd.toFixed(2)}`;
}

/** The parts of a usage line: tokens, then the cost or "no price reported" (or "no usage reported" for none). */
export function usageParts(total: UsageFigures | null, colors: Palette): string[] {
  if (total === null) return [colors.dim('no usage reported')];
  return [...tokens(total), total.cost_usd === null ? colors.dim('no price reported') : cost(total.cost_usd)];
}
