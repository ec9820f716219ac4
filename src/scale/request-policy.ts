import { HttpError } from '../http/http-error';
import { refuseFlagLike } from '../runner/argument-value';
import { isCliId, SESSION_CLI_IDS } from '../clis';
import type { ApprovalPolicy } from '../sessions/types';
import { APPROVAL_POLICIES } from '../sessions/types';
import { DEFAULT_MAX_PROMPT_BYTES, DEFAULT_MAX_QUEUED, DEFAULT_MAX_RUNS_PER_PRINCIPAL, RETRY_AFTER_SECONDS } from './limits';
import type { RunJob, SessionJob } from './run-job';
import type { RunStore } from './store';

/*
 * What a request may ask of a run, under the operator's policy: the request names the CLI, the
 * prompt, and (within what the operator allows) the model and who answers approvals; everything
 * else (where it runs, the executable, its arguments, environment and limits) is the server's. A
 * request once chose `approvals: "allow"` over the operator's defaults, and its `model` became a
 * CLI flag that ran a shell command.
 */

/** What the operator allows a request to choose. */
export interface RequestAllowance {
  /** The approval policies a request may ask for; default `['ask', 'deny']` (`allow` only when listed). */
  approvals?: readonly ApprovalPolicy[];
  /**
   * The models a request may name. Absent: any model, unless `jobDefaults` sets one (then the model
   * is the operator's and a request may not change it).
   */
  models?: readonly string[];
}

/** The approval policies a request may ask for when the operator lists none. */
export const DEFAULT_REQUEST_APPROVALS: readonly ApprovalPolicy[] = ['ask', 'deny'];

/** The server's own part of every job: what a request never sets. */
export type JobDefaults = Omit<RunJob, 'provider' | 'prompt'>;

/** The operator's policy over what requests queue: what they may choose, what they get, and the limits. */
export interface RunPolicy {
  /**
   * What every run started by a request gets from the server, never from the request: where the CLI
   * runs (`cwd`, `workspace`), which executable, its environment, arguments and limits.
   */
  jobDefaults?: JobDefaults;
  /** What a request may choose: approval policies (default `ask`, `deny`) and models. */
  allow?: RequestAllowance;
  /** The longest prompt, in UTF-8 bytes (413 past it); default 1 MiB. */
  maxPromptBytes?: number;
  /** Runs waiting to start past which a request is 429 (with `Retry-After`); default 100. */
  maxQueued?: number;
  /** Runs one principal may have waiting or running past which its request is 429; default 20. */
  maxRunsPerPrincipal?: number;
}

/**
 * Queues the run a request body asks for, as `principal`'s, under `policy`: the one way the runs API
 * and a host's own routes (Nest) turn a request into a run. An `HttpError` for anything refused.
 */
export async function queueRequestedRun(
  store: RunStore,
  body: Record<string, unknown>,
  principal: string,
  policy: RunPolicy,
): Promise<string> {
  const job = jobFromRequest(body, policy.allow ?? {}, policy.jobDefaults ?? {}, policy.maxPromptBytes);
  await checkQueueLimits(store, principal, policy);
  return store.enqueueRun(job, { owner: principal });
}

/**
 * 429 (with `Retry-After`) when the queue holds `maxQueued` jobs, or `principal` has
 * `maxRunsPerPrincipal` runs and turns waiting or running: checked before anything is queued.
 */
export async function checkQueueLimits(store: RunStore, principal: string, policy: RunPolicy): Promise<void> {
  const counts = await store.countRuns(principal);
  const retry = { 'retry-after': String(RETRY_AFTER_SECONDS) };
  if (counts.waiting >= (policy.maxQueued ?? DEFAULT_MAX_QUEUED))
    throw new HttpError(429, `${counts.waiting} runs are waiting to start: try again later`, retry);
  if (counts.owned >= (policy.maxRunsPerPrincipal ?? DEFAULT_MAX_RUNS_PER_PRINCIPAL))
    throw new HttpError(429, `you have ${counts.owned} runs waiting or running, the most allowed: try again later`, retry);
}

/**
 * The job a request body asks for, under `allow` and over `defaults`; an `HttpError` (400 bad
 * input, 403 not allowed, 413 too long) for anything else.
 */
export function jobFromRequest(
  body: Record<string, unknown>,
  allow: RequestAllowance,
  defaults: JobDefaults,
  maxPromptBytes = DEFAULT_MAX_PROMPT_BYTES,
): RunJob {
  const job = sessionJobFromRequest(body, allow, defaults);
  return { ...job, prompt: checkedPrompt('prompt', body.prompt, maxPromptBytes) };
}

/** A prompt (a run's, a session's message) a request gives as `name`: a non-empty string, no NUL, at most `maxBytes`; an `HttpError` otherwise. */
export function checkedPrompt(name: string, prompt: unknown, maxBytes = DEFAULT_MAX_PROMPT_BYTES): string {
  if (typeof prompt !== 'string' || prompt.trim() === '') throw new HttpError(400, `${name} must be a non-empty string`);
  if (prompt.includes('\0')) throw new HttpError(400, `${name} must not contain a NUL byte (\\0): no CLI can be given one`);
  if (Buffer.byteLength(prompt, 'utf8') > maxBytes) throw new HttpError(413, `${name} is longer than ${maxBytes} bytes`);
  return prompt;
}

/**
 * The session a request body asks for (`POST /sessions`: `provider`, `model`, `approvals`), under
 * `allow` and over `defaults`, as `jobFromRequest` reads a run's.
 */
export function sessionJobFromRequest(body: Record<string, unknown>, allow: RequestAllowance, defaults: JobDefaults): SessionJob {
  const { provider, model, approvals } = body;
  if (!isCliId(provider, SESSION_CLI_IDS)) throw new HttpError(400, `provider must be one of ${SESSION_CLI_IDS.join(', ')}`);
  const job: SessionJob = { ...defaults, provider };
  if (model !== undefined) job.model = allowedModel(model, allow, defaults);
  const policies = allow.approvals ?? DEFAULT_REQUEST_APPROVALS;
  if (approvals !== undefined) {
    if (!(APPROVAL_POLICIES as readonly unknown[]).includes(approvals))
      throw new HttpError(400, `approvals must be one of ${APPROVAL_POLICIES.join(', ')}`);
    if (!policies.includes(approvals as ApprovalPolicy))
      throw new HttpError(403, `approvals ${JSON.stringify(approvals)} is not allowed here: ${policies.join(', ')}`);
    job.approvals = approvals as ApprovalPolicy;
  } else if (!policies.includes(job.approvals ?? 'ask')) {
    // The run's own default must be one the operator allows: the first of theirs.
    job.approvals = policies[0];
  }
  return job;
}

function allowedModel(model: unknown, allow: RequestAllowance, defaults: JobDefaults): string {
  if (typeof model !== 'string' || model === '') throw new HttpError(400, 'model must be a non-empty string');
  try {
    refuseFlagLike('model', model);
  } catch (error) {
    throw new HttpError(400, (error as Error).message);
  }
  if (allow.models !== undefined) {
    if (!allow.models.includes(model))
      throw new HttpError(403, `model ${JSON.stringify(model)} is not allowed here: ${allow.models.join(', ') || 'none'}`);
  } else if (defaults.model !== undefined && model !== defaults.model) {
    throw new HttpError(403, `the model is the server's (${defaults.model}): a request may not change it`);
  }
  return model;
}
