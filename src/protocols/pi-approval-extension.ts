/*
 * The pi extension a pi session loads (`pi --extension <this file>`): pi 0.73.1 asks nothing before
 * a tool runs, and its RPC mode has no approval of its own; only an extension's `ctx.ui.confirm`
 * reaches the client (an `extension_ui_request`). Before every tool that is not read-only it asks
 * the host, naming the call in the dialog's message (JSON), and blocks the call on a no (a deny, a
 * withdrawn request). pi loads this file on its own (jiti: the .ts in development, the compiled .js
 * in the package), so it imports nothing: its names are repeated from wire/pi-rpc.ts on purpose.
 */

/** What this extension reads of pi's `tool_call` event and context (pi's ExtensionAPI, reduced). */
interface ToolCallEvent {
  readonly toolCallId: string;
  readonly toolName: string;
  readonly input: unknown;
}
interface ExtensionContext {
  readonly ui: { confirm(title: string, message: string): Promise<boolean> };
}
interface ExtensionApi {
  on(
    event: 'tool_call',
    handler: (event: ToolCallEvent, ctx: ExtensionContext) => Promise<{ block: true; reason: string } | undefined>,
  ): void;
}

/** pi's tools that only read: they run unasked, as the other CLIs' reads do. */
const READ_ONLY = new Set(['read', 'grep', 'find', 'ls']);

/** PI_APPROVAL_TITLE of wire/pi-rpc.ts. */
const TITLE = 'cli-subprocess-core: allow this tool call?';

export default function piApprovalExtension(pi: ExtensionApi): void {
  pi.on('tool_call', async (event, ctx) => {
    if (READ_ONLY.has(event.toolName)) return undefined;
    const details = { toolCallId: event.toolCallId, toolName: event.toolName, input: event.input };
    const allowed = await ctx.ui.confirm(TITLE, JSON.stringify(details));
    return allowed ? undefined : { block: true, reason: 'The host denied this tool call.' };
  });
}
