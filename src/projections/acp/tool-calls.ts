import { CLI_IDS, CLIS } from '../../clis';
import { arr, obj, str } from '../../providers/drafts';
import type { JsonObject, JsonValue } from '../../schema/json';
import { ACP_TOOL_KINDS, type AcpToolKind } from '../../tools/acp-tool-kind';

export type { AcpToolKind } from '../../tools/acp-tool-kind';

const ACP_KINDS: ReadonlySet<string> = new Set(ACP_TOOL_KINDS);

/**
 * Every CLI's tool names, by what they do: the union of the registry files' `tools` (each read
 * from the CLI's tool declarations and captures). A name not listed is `other`; an ACP agent's own
 * kind (in `metadata.kind`) wins. CLIs that share a name agree on its kind (a registry test checks it).
 */
const TOOL_KINDS: Readonly<Record<string, AcpToolKind>> = Object.assign({}, ...CLI_IDS.map((id) => CLIS[id].tools));

/** A tool call as a client shows it: ACP's `tool_call` fields that describe it. */
export interface ToolCallView {
  kind: AcpToolKind;
  title: string;
  locations: JsonObject[];
  /** The edit as ACP diffs (`{type: 'diff', path, oldText, newText}`), or none. */
  diffs: JsonObject[];
}

/** How a client shows a `tool_use` of `toolName` with `input` (an ACP agent's own kind, title and locations in `metadata` win). */
export function viewToolCall(toolName: string | null, input: JsonObject, metadata: JsonObject = {}): ToolCallView {
  const own = str(metadata.kind);
  const kind: AcpToolKind = own !== null && ACP_KINDS.has(own) ? (own as AcpToolKind) : (TOOL_KINDS[toolName ?? ''] ?? 'other');
  const path = pathOf(input);
  const diffs = kind === 'edit' ? diffsOf(input, path) : [];
  const locations = arr(metadata.locations).flatMap((location) => {
    const at = str(obj(location)?.path);
    return at === null ? [] : [{ path: at }];
  });
  if (locations.length === 0) {
    for (const diff of diffs) locations.push({ path: String(diff.path) });
    if (locations.length === 0 && path !== null && (kind === 'read' || kind === 'edit' || kind === 'delete')) locations.push({ path });
  }
  return { kind, title: str(metadata.title) ?? titleOf(kind, toolName, input, path), locations, diffs };
}

/** The file a tool works on, by the names the CLIs give it. */
function pathOf(input: JsonObject): string | null {
  return str(input.file_path) ?? str(input.filePath) ?? str(input.absolute_path) ?? str(input.notebook_path) ?? str(input.path) ?? null;
}

function titleOf(kind: AcpToolKind, toolName: string | null, input: JsonObject, path: string | null): string {
  const command = str(input.command) ?? str(input.cmd);
  if (kind === 'execute' && command !== null) return command;
  if ((kind === 'read' || kind === 'edit' || kind === 'delete') && path !== null) return `${toolName ?? kind} ${path}`;
  const changed = arr(input.changes).flatMap((change) => str(obj(change)?.path) ?? []);
  if (changed.length > 0) return `${toolName ?? kind} ${changed.join(', ')}`;
  const query = str(input.query) ?? str(input.pattern) ?? str(input.url) ?? str(input.description);
  if (query !== null) return `${toolName ?? kind}: ${query}`;
  return toolName ?? kind;
}

/**
 * An edit as diffs: the old and new text of Claude's Edit/MultiEdit, Gemini's and Qwen's
 * replace/edit, OpenCode's edit and Copilot's str_replace (`old_string`/`oldString`/`old_str`…), a
 * whole new file for a write (`content`, `file_text`), and Codex's file changes (the added file's
 * text; a change to an existing file carries a unified diff, not its texts, so it is shown as text).
 */
function diffsOf(input: JsonObject, path: string | null): JsonObject[] {
  const changes = arr(input.changes);
  if (changes.length > 0) {
    return changes.flatMap((change) => {
      const entry = obj(change);
      const at = str(entry?.path);
      const kind = str(obj(entry?.kind)?.type) ?? str(entry?.kind);
      const text = str(entry?.diff) ?? str(entry?.content);
      return at !== null && kind === 'add' && text !== null ? [{ type: 'diff', path: at, oldText: null, newText: text }] : [];
    });
  }
  if (path === null) return [];
  const edits = arr(input.edits).length > 0 ? arr(input.edits).map((edit) => obj(edit) ?? {}) : [input];
  return edits.flatMap((edit) => {
    const newText = str(edit.new_string) ?? str(edit.newString) ?? str(edit.new_str) ?? str(edit.content) ?? str(edit.file_text);
    if (newText === null) return [];
    const oldText: JsonValue = str(edit.old_string) ?? str(edit.oldString) ?? str(edit.old_str) ?? null;
    return [{ type: 'diff', path, oldText, newText }];
  });
}
