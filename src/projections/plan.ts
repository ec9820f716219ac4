import { CLI_IDS, CLIS } from '../clis';
import { arr, obj, str } from '../providers/drafts';
import type { JsonObject } from '../schema/json';

/** One entry of an agent's plan (its to-do list), as ACP's `plan` update and the UI stream's plan part carry it. */
export interface PlanEntry {
  content: string;
  status: 'pending' | 'in_progress' | 'completed';
  priority: 'high' | 'medium' | 'low';
}

/**
 * The tools that restate an agent's whole to-do list, by the name each CLI gives it (its registry
 * file's `planTools`: Claude's `TodoWrite`, Codex's `todo_list`, OpenCode's `todowrite`…). A name
 * is read for every CLI: the ACP and app-server sessions name a CLI's plan tool as its own output does.
 */
const PLAN_TOOLS: ReadonlySet<string> = new Set(CLI_IDS.flatMap((id) => CLIS[id].planTools));

/** The plan a `tool_use` of a to-do tool states, or null for any other tool. */
export function planOf(toolName: string | null, input: JsonObject): PlanEntry[] | null {
  if (toolName === null || !PLAN_TOOLS.has(toolName)) return null;
  const items = arr(input.todos ?? input.items ?? input.entries);
  return items.flatMap((item) => {
    const entry = obj(item);
    if (!entry) return [];
    // Claude, OpenCode, Qwen: content; Codex exec: text; Codex app-server: step; Gemini: description.
    const content = str(entry.content) ?? str(entry.text) ?? str(entry.step) ?? str(entry.description) ?? '';
    return [{ content, status: statusOf(entry), priority: priorityOf(entry.priority) }];
  });
}

function statusOf(entry: JsonObject): PlanEntry['status'] {
  if (entry.completed === true) return 'completed';
  const status = str(entry.status);
  if (status === 'completed' || status === 'done') return 'completed';
  if (status === 'in_progress' || status === 'inProgress' || status === 'in-progress') return 'in_progress';
  return 'pending';
}

function priorityOf(value: unknown): PlanEntry['priority'] {
  return value === 'high' || value === 'low' ? value : 'medium';
}
