/* The sessions' public API: what the package root exports from src/sessions. */
export { startSession } from './session';
export { SessionTurns } from './turns';
export type {
  ApprovalAnswer,
  ApprovalPolicy,
  ApprovalRequestEvent,
  McpNameValue,
  McpServer,
  McpServerKind,
  Session,
  SessionOptions,
  SessionProvider,
} from './types';
