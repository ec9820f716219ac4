/* The UI message stream projection's public API (the Vercel AI SDK's `useChat`). */
export type { PlanEntry } from '../plan';
export type { UIApprovalData, UIFinishReason, UIMessageChunk, UIVersion } from './chunks';
export { pipeUIMessageStreamToResponse } from './node-response';
export { UIMessageStreamProjector, type UIMessageStreamOptions } from './projector';
export { pipeSessionTurnToResponse } from './session-turn';
export { UI_MESSAGE_STREAM_HEADERS, toUIMessageStreamResponse } from './sse';
