/*
 * The methods of Codex's `codex app-server` this library speaks, each written once (as openai/codex
 * `codex-rs/app-server-protocol` declares them; seen on the wire with Codex 0.169.0). The client
 * (protocols/codex-app-server.ts) and the events mapping (protocols/codex-app-server-events.ts) key
 * their handlers by these tables, so a renamed method fails to compile.
 */

/** The client's requests (and its one notification, `initialized`). */
export const CODEX_METHODS = {
  initialize: 'initialize',
  initialized: 'initialized',
  threadStart: 'thread/start',
  threadResume: 'thread/resume',
  turnStart: 'turn/start',
  turnInterrupt: 'turn/interrupt',
  modelList: 'model/list',
  /** Experimental (`capabilities.experimentalApi`): ends the thread's background terminals. */
  cleanBackgroundTerminals: 'thread/backgroundTerminals/clean',
} as const;

/** The server's requests: the approvals. */
export const CODEX_SERVER_REQUESTS = {
  commandApproval: 'item/commandExecution/requestApproval',
  fileChangeApproval: 'item/fileChange/requestApproval',
  /** An MCP server's elicitation; Codex 0.169 asks an MCP tool call's approval so (`_meta.codex_approval_kind: "mcp_tool_call"`). */
  mcpElicitation: 'mcpServer/elicitation/request',
} as const;

/** Whether an `mcpServer/elicitation/request`'s params are Codex asking to run an MCP tool (not a server's own form). */
export const isMcpToolApproval = (params: unknown): boolean =>
  typeof params === 'object' &&
  params !== null &&
  (params as { _meta?: { codex_approval_kind?: unknown } })._meta?.codex_approval_kind === 'mcp_tool_call';
export type CodexServerRequest = (typeof CODEX_SERVER_REQUESTS)[keyof typeof CODEX_SERVER_REQUESTS];

/** The server's notifications the mapping reads. */
export const CODEX_NOTIFICATIONS = {
  threadStarted: 'thread/started',
  itemStarted: 'item/started',
  itemCompleted: 'item/completed',
  agentMessageDelta: 'item/agentMessage/delta',
  planDelta: 'item/plan/delta',
  reasoningSummaryDelta: 'item/reasoning/summaryTextDelta',
  reasoningTextDelta: 'item/reasoning/textDelta',
  tokenUsageUpdated: 'thread/tokenUsage/updated',
  turnStarted: 'turn/started',
  turnCompleted: 'turn/completed',
  turnPlanUpdated: 'turn/plan/updated',
  error: 'error',
  warning: 'warning',
  serverRequestResolved: 'serverRequest/resolved',
} as const;
export type CodexNotification = (typeof CODEX_NOTIFICATIONS)[keyof typeof CODEX_NOTIFICATIONS];
