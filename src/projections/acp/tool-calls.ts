import { arr, obj, str } from '../../providers/drafts';
import type { JsonObject, JsonValue } from '../../schema/json';

/** ACP's tool kinds (`ToolKind` in the protocol's schema): how a client shows a tool call. */
export type AcpToolKind = 'read' | 'edit' | 'delete' | 'move' | 'search' | 'execute' | 'think' | 'fetch' | 'switch_mode' | 'other';

const ACP_KINDS: ReadonlySet<string> = new Set(['read', 'edit', 'delete', 'move', 'search', 'execute', 'think', 'fetch', 'switch_mode', 'other']);

/**
 * Each CLI's tool names, by what they do: one table for every CLI (read from each CLI's tool
 * declarations and captures). Claude Code: Bash, Read, Write, Edit, MultiEdit, NotebookEdit, Glob,
 * Grep, LS, WebFetch, WebSearch, Task, ExitPlanMode. Codex: command_execution / commandExecution,
 * file_change / fileChange, web_search / webSearch. Gemini CLI and Qwen Code: run_shell_command,
 * read_file, read_many_files, list_directory, write_file, replace / edit, glob, search_file_content /
 * grep_search, web_fetch, google_web_search. OpenCode: bash, read, list, write, edit, glob, grep,
 * webfetch, task. Copilot CLI: bash, view, create, edit, str_replace_editor. Cursor: its `…ToolCall`
 * keys. A name not listed is `other`; an ACP agent's own kind (in `metadata.kind`) wins.
 */
const TOOL_KINDS: Readonly<Record<string, AcpToolKind>> = {
  Bash: 'execute',
  command_execution: 'execute',
  commandExecution: 'execute',
  run_shell_command: 'execute',
  bash: 'execute',
  shellToolCall: 'execute',
  Read: 'read',
  read_file: 'read',
  read_many_files: 'read',
  read: 'read',
  view: 'read',
  LS: 'read',
  list_directory: 'read',
  list: 'read',
  readToolCall: 'read',
  lsToolCall: 'read',
  Write: 'edit',
  Edit: 'edit',
  MultiEdit: 'edit',
  NotebookEdit: 'edit',
  file_change: 'edit',
  fileChange: 'edit',
  write_file: 'edit',
  replace: 'edit',
  edit: 'edit',
  write: 'edit',
  create: 'edit',
  str_replace_editor: 'edit',
  editToolCall: 'edit',
  deleteToolCall: 'delete',
  Glob: 'search',
  Grep: 'search',
  glob: 'search',
  grep: 'search',
  search_file_content: 'search',
  grep_search: 'search',
  globToolCall: 'search',
  grepToolCall: 'search',
  WebSearch: 'search',
  web_search: 'search',
  webSearch: 'search',
  google_web_search: 'search',
  WebFetch: 'fetch',
  web_fetch: 'fetch',
  webfetch: 'fetch',
  Task: 'think',
  task: 'think',
  ExitPlanMode: 'switch_mode',
};

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
