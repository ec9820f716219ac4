export { listCliSessions } from './list-sessions';
export { readCliSession, type ReadCliSessionOptions } from './read-session';
export type { CliSessionRef, ListCliSessionsOptions } from './session-ref';
