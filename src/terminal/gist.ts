import { structuredPatch } from 'diff';
import { viewToolCall } from '../projections/acp/tool-calls';
import { arr, obj, str } from '../providers/drafts';
import type { JsonObject, JsonValue } from '../schema/json';

/** A tool call as one line of a transcript, and the diffs of an edit (as unified-diff lines). */
export interface ToolGist {
  /** `$ command`, `Edit src/a.ts`, `Read README.md`, `server › tool {…}`, … */
  readonly line: string;
  /** The edit's diff lines (`+…`, `-…`, ` …`, `@@ … @@`), empty for any other tool. */
  readonly diff: readonly string[];
}

/**
 * The MCP server and tool of a tool name: Claude Code (and Amp, which copies it) names an MCP tool
 * `mcp__<server>__<tool>`; Codex's profile names its `mcp_tool_call` items `<server>/<tool>`.
 */
function mcpTool(toolName: string | null): { server: string; tool: string } | null {
  if (toolName === null) return null;
  const claude = /^mcp__(.+?)__(.+)$/.exec(toolName);
  if (claude) return { server: claude[1], tool: claude[2] };
  const codex = /^([^/\s]+)\/([^/\s]+)$/.exec(toolName);
  return codex ? { server: codex[1], tool: codex[2] } : null;
}

/**
 * The gist of a tool call, from the one table of every CLI's tool names (the ACP projection's
 * `viewToolCall`: its kind and title), with paths under `cwd` shown relative to it. `metadata` is an
 * ACP agent's own view of the call, where there is one (`kind`, `title`, `locations`, `content`).
 */
export function toolGist(toolName: string | null, input: JsonObject, metadata: JsonObject, cwd: string | null): ToolGist {
  const view = viewToolCall(toolName, input, metadata);
  const relative = (text: string) => (cwd ? text.split(`${cwd.replace(/\/+$/, '')}/`).join('') : text);
  const mcp = view.kind === 'other' && str(metadata.title) === null ? mcpTool(toolName) : null;
  let line: string;
  if (mcp) {
    const args = Object.keys(input).length > 0 ? ` ${JSON.stringify(input)}` : '';
    line = `${mcp.server} › ${mcp.tool}${args}`;
  } else if (view.kind === 'execute' && (str(input.command) ?? str(input.cmd)) !== null) {
    line = `$ ${firstLine(view.title)}`;
  } else line = relative(firstLine(view.title));
  // An ACP tool call's own diffs (its `content`), when its input says none (Gemini CLI sends no raw input).
  const diffs =
    view.diffs.length > 0
      ? view.diffs
      : arr(metadata.content).flatMap((entry) => (obj(entry)?.type === 'diff' ? [obj(entry) as JsonObject] : []));
  const diff = diffs.flatMap((entry) => diffLines(relative(String(entry.path)), str(entry.oldText), str(entry.newText) ?? ''));
  return { line, diff };
}

/** The first line of `text`, with ` …` when more follow. */
export function firstLine(text: string): string {
  const lines = text.trim().split('\n');
  return lines.length > 1 ? `${lines[0]} …` : lines[0];
}

/** An edit's unified diff lines (a new file: every line added), one line of context. */
function diffLines(path: string, oldText: string | null, newText: string): string[] {
  const withEnd = (text: string) => (text === '' || text.endsWith('\n') ? text : `${text}\n`);
  const patch = structuredPatch(path, path, withEnd(oldText ?? ''), withEnd(newText), '', '', { context: 1 });
  return patch.hunks.flatMap((hunk) => [
    `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`,
    ...hunk.lines.filter((line) => !line.startsWith('\\')),
  ]);
}

/** The text of a tool's output, whatever shape the CLI gave it (a string, content blocks, an object). */
export function outputText(content: JsonValue): string {
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map(outputText).join('\n');
  const block = obj(content);
  if (block) {
    if (block.type === 'image') return '[image]';
    for (const key of ['text', 'stdout', 'output', 'content', 'aggregated_output', 'result']) {
      const value = block[key];
      if (typeof value === 'string' || Array.isArray(value)) return outputText(value);
    }
    if (arr(block.content).length > 0) return outputText(block.content);
  }
  return JSON.stringify(content);
}
