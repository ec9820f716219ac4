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
export { WEB_IMAGE_TYPES } from '../wire/prompt-content';
export type {
  EmbeddedResource,
  ImageContent,
  PromptContent,
  ResourceContent,
  ResourceLinkContent,
  SessionPrompt,
  TextContent,
} from '../wire/prompt-content';
