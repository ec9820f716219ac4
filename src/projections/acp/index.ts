/* The ACP projection's public API. */
export { AcpProjector, type AcpPermission, type AcpPromptAnswer, type AcpStopReason } from './projector';
export { viewToolCall, type AcpToolKind, type ToolCallView } from './tool-calls';
export { serveAcpAgent, type AcpAgentOptions } from './agent';
export { AcpHistory, defaultAcpHistoryDir, type SessionHistory } from './history';
