import 'reflect-metadata';

export { Event, type AnyEvent, type EventInput, type EventParseOptions } from './events/event';
export { nextEventId } from './events/event-id';
export { anyEventOpenApi, eventKindModels, eventOpenApiComponents, type EventKindModel } from './events/event-openapi';
export * from './payloads';
export { KINDS, isEventKind, type EventKind } from './registry/kinds';
export { PAYLOAD_CLASSES, type DefaultPayloadClasses, type PayloadFor } from './registry/payload-classes';
export { Registry, type PayloadClassMap, type WithClass } from './registry/registry';
export { ToolData } from './tools/tool-data';
export { ToolDescriptor } from './tools/tool-descriptor';
export { ToolRequest } from './tools/tool-request';
export { ToolResponse } from './tools/tool-response';
export * from './schema/conventions';
export { IsJsonValue } from './schema/is-json-value';
export type { ParseOptions } from './schema/engine';
export type { FieldSpec, FieldType } from './schema/field';
export { fieldsOf } from './schema/field';
export {
  SchemaError,
  type ErrorTree,
  type Issue,
  type IssueCode,
  type IssuePath,
  type NonJsonType,
  type ParseResult,
  type SchemaErrorTag,
} from './schema/issue';
export { validateSerializable, type JsonPrimitive } from './schema/json';
export type { JsonSchema } from './schema/json-schema';
export { Model, type ModelInput } from './schema/model';
export { toOpenApi30, type OpenApiPropertyMetadata, type SchemaOptions } from './schema/openapi';
export { PreciseDate } from './schema/precise-date';
export {
  ERROR_CODES,
  PROVIDERS,
  UsageTotals,
  createDecoder,
  decodeLines,
  detectProvider,
  readUsage,
  type Decoder,
  type DecoderOptions,
  type ErrorCode,
  type EventDraft,
  type ExitInfo,
  type LineSource,
  type ProviderId,
  type ProviderProfile,
  type UsageAggregation,
  type UsageFigures,
  type UsageState,
} from './decode';
export { listCliSessions, readCliSession, type CliSessionRef, type ListCliSessionsOptions, type ReadCliSessionOptions } from './history';
export { HISTORY_CLI_IDS, type HistoryCli } from './clis';
export {
  ExecutableNotFoundError,
  startRun,
  type PermissionPreset,
  type Run,
  type RunCost,
  type RunOptions,
  type RunOutcome,
  type RunProvider,
  type RunStatus,
} from './runner';
export {
  SessionTurns,
  startSession,
  type ApprovalAnswer,
  type ApprovalPolicy,
  type ApprovalRequestEvent,
  type McpNameValue,
  type McpServer,
  type McpServerKind,
  type Session,
  type SessionOptions,
  type SessionProvider,
  WEB_IMAGE_TYPES,
  type EmbeddedResource,
  type ImageContent,
  type PromptContent,
  type ResourceContent,
  type ResourceLinkContent,
  type SessionPrompt,
  type TextContent,
} from './sessions';
export {
  AcpHistory,
  AcpProjector,
  defaultAcpHistoryDir,
  serveAcpAgent,
  viewToolCall,
  type AcpAgentOptions,
  type SessionHistory,
  type AcpPermission,
  type AcpPromptAnswer,
  type AcpStopReason,
  type AcpToolKind,
  type ToolCallView,
} from './projections/acp';
export {
  UI_MESSAGE_STREAM_HEADERS,
  UIMessageStreamProjector,
  pipeSessionTurnToResponse,
  pipeUIMessageStreamToResponse,
  toUIMessageStreamResponse,
  type PlanEntry,
  type UIApprovalData,
  type UIFinishReason,
  type UIMessageChunk,
  type UIMessageStreamOptions,
  type UIVersion,
} from './projections/ui-message-stream';
export * from './scale';
export { accessCheck, ANONYMOUS, bearerToken, isLoopbackHost, type AccessOptions, type Authenticate } from './http/access';
export { HttpError, sendJson } from './http/http-error';
export { readJsonBody } from './http/json-body';
