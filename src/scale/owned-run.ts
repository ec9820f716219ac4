import type { RecordKind } from './run-record';
import type { RunRecord, RunStore } from './store';

/** Run ids as the stores make them (`randomUUID`): anything else never reaches a store. */
const RUN_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Whether `runId` has the shape of a run id (`GET /runs/events/events` once named one of BullMQ's own keys). */
export function isRunId(runId: string): boolean {
  return RUN_ID.test(runId);
}

/**
 * Whether `runId` names a run of `principal`'s. A run of another principal's is answered exactly as
 * one that does not exist (404 over HTTP): its id tells a caller nothing.
 */
export async function isOwnedRun(store: RunStore, runId: string, principal: string, kind: RecordKind = 'run'): Promise<boolean> {
  return (await ownedRun(store, runId, principal, kind)) !== null;
}

/** The record of `runId` when it is a run (or a session, by `kind`) of `principal`'s; null otherwise (as `isOwnedRun`). */
export async function ownedRun(store: RunStore, runId: string, principal: string, kind: RecordKind = 'run'): Promise<RunRecord | null> {
  if (!isRunId(runId)) return null;
  const record = await store.findRun(runId);
  return record !== null && record.owner === principal && record.kind === kind ? record : null;
}
