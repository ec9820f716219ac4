import { JsonObject, OptionalTrimmedString } from '../schema/conventions';
import { Payload } from './payload';

/** A provider CLI asks for approval. */
export class ApprovalRequestedPayload extends Payload {
  static override readonly kind = 'approval_requested' as const;

  @OptionalTrimmedString() approval_id!: string | null;
  /** What needs approval (a tool name, a command). */
  @OptionalTrimmedString() subject!: string | null;
  @JsonObject({}) details!: JsonObject;
}
