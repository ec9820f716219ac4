/* The runner's public API: what the package root exports from src/runner. */
export { startRun } from './run';
export { ExecutableNotFoundError } from './errors';
export type { PermissionPreset, Run, RunCost, RunOptions, RunOutcome, RunProvider, RunStatus } from './types';
