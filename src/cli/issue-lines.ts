import { countedIssues, cut, formatPath } from '../schema/issue';
import type { Issue } from '../index';

/**
 * Bounds of one line's report: whatever the input, a line's report stays a few KB. Forced by real
 * inputs: 1,000,000 issues on a 15 MB line printed 102 MB, a 10 MB key one 10 MB report line.
 */
export const MAX_ISSUES_PER_LINE = 10;
const MAX_MESSAGE_CHARS = 200;
/** `formatPath` already keeps 8 keys of at most 40 characters; escaping can still triple that. */
const MAX_PATH_CHARS = 200;

/** What the CLI itself finds wrong with a line before the library sees it. */
export type LineProblemCode = 'line_too_long' | 'invalid_utf8';

/**
 * One line per issue, compiler style, `file:line: path: message (code)`, for at most
 * MAX_ISSUES_PER_LINE issues, then `file:line: … and K more issues` (K counts the issues the parse
 * only counted too).
 */
export function formatIssues(source: string, lineNumber: number, issues: readonly Issue[]): string {
  const where = `${source}:${lineNumber}: `;
  const { listed, total } = countedIssues(issues);
  let text = '';
  const shown = Math.min(listed.length, MAX_ISSUES_PER_LINE);
  for (let i = 0; i < shown; i++) {
    const { code, path, message } = listed[i];
    text += `${where}${cut(formatPath(path), MAX_PATH_CHARS) || '(root)'}: ${cut(message, MAX_MESSAGE_CHARS)} (${code})\n`;
  }
  const more = total - shown;
  if (more > 0) text += `${where}… and ${more} more ${more === 1 ? 'issue' : 'issues'}\n`;
  return text;
}

/** The report line of a problem the CLI found itself (the line as a whole, so the path is `(root)`). */
export function formatLineProblem(source: string, lineNumber: number, code: LineProblemCode, message: string): string {
  return `${source}:${lineNumber}: (root): ${message} (${code})\n`;
}
