import type { PermissionOptionKind } from '@agentclientprotocol/sdk';

/*
 * The Agent Client Protocol's methods, each written once (the schema is `schema/v1/schema.json` of
 * `@agentclientprotocol/sdk`, whose generated types the client and the agent import, types only).
 * The client (protocols/acp.ts) and the agent (projections/acp/agent.ts) key their handlers by these
 * tables, so a renamed method fails to compile.
 */

/** The client's requests and notifications to the agent. */
export const ACP_AGENT_METHODS = {
  initialize: 'initialize',
  sessionNew: 'session/new',
  sessionLoad: 'session/load',
  sessionList: 'session/list',
  sessionResume: 'session/resume',
  sessionSetMode: 'session/set_mode',
  sessionSetConfigOption: 'session/set_config_option',
  /** Unstable in the schema (ACP's `SessionModelState`): Gemini CLI, Qwen Code and Cline answer `models` and take it. */
  sessionSetModel: 'session/set_model',
  sessionPrompt: 'session/prompt',
  sessionClose: 'session/close',
  authenticate: 'authenticate',
  /** A notification. */
  sessionCancel: 'session/cancel',
} as const;
export type AcpAgentMethod = (typeof ACP_AGENT_METHODS)[keyof typeof ACP_AGENT_METHODS];

/** ACP's own error codes (the schema's `ErrorCode`, beside JSON-RPC's). */
export const ACP_ERRORS = {
  /** "Authentication required": the client may offer the agent's `authMethods` (the SDK's `RequestError.authRequired`). */
  authRequired: -32000,
} as const;

/** The agent's requests and notifications to the client. */
export const ACP_CLIENT_METHODS = {
  requestPermission: 'session/request_permission',
  /** A notification. */
  sessionUpdate: 'session/update',
} as const;
export type AcpClientMethod = (typeof ACP_CLIENT_METHODS)[keyof typeof ACP_CLIENT_METHODS];

/** The option kinds of a permission request that answer each host decision, in order of preference. */
export const PERMISSION_KINDS = {
  allow: ['allow_once', 'allow_always'],
  remember: ['allow_always', 'allow_once'],
  deny: ['reject_once', 'reject_always'],
} as const satisfies Record<string, readonly PermissionOptionKind[]>;
