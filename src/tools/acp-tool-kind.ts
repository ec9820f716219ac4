/** ACP's tool kinds (`ToolKind` in the protocol's schema): how a client shows a tool call. */
export type AcpToolKind = 'read' | 'edit' | 'delete' | 'move' | 'search' | 'execute' | 'think' | 'fetch' | 'switch_mode' | 'other';

/** Every `AcpToolKind`. */
export const ACP_TOOL_KINDS: readonly AcpToolKind[] = [
  'read',
  'edit',
  'delete',
  'move',
  'search',
  'execute',
  'think',
  'fetch',
  'switch_mode',
  'other',
];
