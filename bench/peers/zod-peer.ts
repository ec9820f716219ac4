import { z } from 'zod';

/*
 * The same event semantics written with zod 4, as a peer to compare against:
 * trims, defaults (missing or null), the unknown-key split into `extra`, and the
 * same output shape (known fields in order, then extra keys; timestamps keep their text).
 */

const MAX = Number.MAX_SAFE_INTEGER;
const KINDS = [
  'run_started',
  'assistant_delta',
  'assistant_message',
  'user_message',
  'thinking',
  'tool_use',
  'tool_result',
  'approval_requested',
  'approval_resolved',
  'cost_update',
  'result',
  'error',
  'stderr',
  'raw',
] as const;

const orDefault = <T extends z.ZodType>(schema: T, fallback: () => unknown) => schema.nullish().transform((v) => v ?? fallback());
const trimmed = () => orDefault(z.string().trim(), () => null);
const text = (d = '') => orDefault(z.string(), () => d);
const nonNegInt = (d: number | null) => orDefault(z.number().int().min(0).max(MAX), () => d);
const object = () => orDefault(z.record(z.string(), z.unknown()), () => ({}));
const any = (d: unknown = null) =>
  z
    .unknown()
    .optional()
    .transform((v) => v ?? d);
const enumOf = (values: readonly [string, ...string[]], d: string) => orDefault(z.string().trim().pipe(z.enum(values)), () => d);

/** A Date that keeps its source text, like the library's PreciseDate. */
class TextDate extends Date {
  constructor(
    ms: number,
    readonly iso: string,
  ) {
    super(ms);
  }
  override toJSON(): string {
    return this.iso;
  }
}

const ISO = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})$/i;
const timestamp = z
  .union([z.string().regex(ISO), z.number(), z.date()])
  .nullish()
  .transform((v, ctx) => {
    const value = v ?? Date.now();
    const ms = typeof value === 'string' ? Date.parse(value) : value instanceof Date ? value.getTime() : value;
    if (!Number.isFinite(ms)) {
      ctx.addIssue({ code: 'custom', message: 'invalid date' });
      return z.NEVER;
    }
    return new TextDate(ms, typeof value === 'string' ? value : new Date(ms).toISOString());
  });

const metadata = object;
const PAYLOADS: Record<(typeof KINDS)[number], Record<string, z.ZodType>> = {
  run_started: {
    provider_session_id: trimmed(),
    command: trimmed(),
    args: orDefault(z.array(z.string().trim()), () => []),
    cwd: trimmed(),
  },
  assistant_delta: { content: text(), index: nonNegInt(null), format: any('text') },
  assistant_message: { content: orDefault(z.array(z.unknown()), () => []), role: enumOf(['assistant'], 'assistant'), model: trimmed() },
  user_message: { content: orDefault(z.array(z.unknown()), () => []), role: enumOf(['user'], 'user') },
  thinking: { content: text(), signature: trimmed() },
  tool_use: { tool_name: trimmed(), tool_call_id: trimmed(), input: object() },
  tool_result: { tool_call_id: trimmed(), content: any(), is_error: orDefault(z.boolean(), () => false) },
  approval_requested: { approval_id: trimmed(), subject: trimmed(), details: object() },
  approval_resolved: { approval_id: trimmed(), decision: any(), reason: trimmed() },
  cost_update: {
    input_tokens: nonNegInt(0),
    output_tokens: nonNegInt(0),
    total_tokens: nonNegInt(0),
    cost_usd: orDefault(z.number().min(0), () => 0),
  },
  result: { status: any(), stop_reason: any(), output: any(), object: any() },
  error: {
    message: orDefault(z.string().trim(), () => ''),
    code: trimmed(),
    severity: enumOf(['info', 'warning', 'error', 'fatal'], 'error'),
  },
  stderr: { content: text() },
  raw: { stream: any('stdout'), content: any() },
};

/** A loose object schema whose output splits unknown keys into `extra`. */
function withExtra(shape: Record<string, z.ZodType>) {
  const keys = new Set(Object.keys(shape));
  return z.looseObject(shape).transform((value) => {
    const known: Record<string, unknown> = {};
    const extra: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) (keys.has(key) ? known : extra)[key] = v;
    return { known, extra };
  });
}

const payloadSchemas = Object.fromEntries(KINDS.map((kind) => [kind, withExtra({ ...PAYLOADS[kind], metadata: metadata() })])) as Record<
  (typeof KINDS)[number],
  ReturnType<typeof withExtra>
>;

let lastId = 0;
const envelope = withExtra({
  id: orDefault(z.number().int().min(1).max(MAX), () => ++lastId),
  kind: z.string().trim().pipe(z.enum(KINDS)),
  provider: trimmed(),
  sequence: nonNegInt(null),
  timestamp,
  payload: z.unknown().optional(),
  raw: any(),
  provider_session_id: trimmed(),
  metadata: metadata(),
});

type Split = { known: Record<string, unknown>; extra: Record<string, unknown> };

/** Parses a JSON line into the split form; throws a ZodError on invalid input. */
export function zodParse(line: string): { envelope: Split; payload: Split } {
  const env = envelope.parse(JSON.parse(line)) as Split;
  const kind = env.known.kind as (typeof KINDS)[number];
  const payload = payloadSchemas[kind].parse(env.known.payload ?? {}) as Split;
  return { envelope: env, payload };
}

/** The output object: known fields, payload, then extras — the library's `toJSON` shape. */
export function zodToJSON(parsed: { envelope: Split; payload: Split }): Record<string, unknown> {
  const out: Record<string, unknown> = { ...parsed.envelope.known, ...parsed.envelope.extra };
  out.payload = { ...parsed.payload.known, ...parsed.payload.extra };
  out.timestamp = (out.timestamp as TextDate).toJSON();
  return out;
}
