import { NonNegInt, NonNegNumber } from '../schema/conventions';
import { Payload } from './payload';

/** Token and cost accounting. */
export class CostUpdatePayload extends Payload {
  static override readonly kind = 'cost_update' as const;

  @NonNegInt(0) input_tokens!: number;
  @NonNegInt(0) output_tokens!: number;
  @NonNegInt(0) total_tokens!: number;
  @NonNegNumber(0) cost_usd!: number;
}
