import type { JsonValue } from '../schema/json';

/**
 * A tool result's content as text for a client: a string as it is; content blocks (Claude's, an MCP
 * result's `content`) joined by their text; Cursor's and Codex's result objects by the text fields
 * they carry; anything else as JSON.
 */
export function toolOutputText(content: JsonValue | undefined): string {
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    const texts = content.map(blockText);
    if (texts.every((text) => text !== null)) return texts.join('\n');
    return JSON.stringify(content);
  }
  if (typeof content === 'object') {
    // An MCP result ({content: [...], isError}) and its text blocks.
    if (Array.isArray(content.content)) return toolOutputText(content.content);
    for (const key of TEXT_FIELDS) {
      const value = content[key];
      if (typeof value === 'string' && value !== '') return value;
    }
  }
  return JSON.stringify(content);
}

/** Fields of a tool's result object that hold its output as text, by preference (Cursor's shell and edit results, Codex's command output…). */
const TEXT_FIELDS = ['text', 'output', 'stdout', 'aggregated_output', 'aggregatedOutput', 'diffString', 'message', 'error'];

/** A content block's text (a `text` block, or a string); null for a block with none. */
function blockText(block: JsonValue): string | null {
  if (typeof block === 'string') return block;
  if (typeof block === 'object' && block !== null && !Array.isArray(block) && typeof block.text === 'string') return block.text;
  return null;
}
