import { AnyJson, JsonValue, OptionalTrimmedString } from '../schema/conventions';
import { Payload } from './payload';

/** An approval decision. */
export class ApprovalResolvedPayload extends Payload {
  static override readonly kind = 'approval_resolved' as const;

  @OptionalTrimmedString() approval_id!: string | null;
  /** Typically "allow" or "deny"; providers may send richer values. */
  @AnyJson() decision!: JsonValue;
  @OptionalTrimmedString() reason!: string | null;
}
