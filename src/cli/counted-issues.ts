import type { Issue } from '../index';

/**
 * The issues a parse listed, and how many it found: a parse keeps at most 100 and closes them with
 * one `too_many_issues` issue whose message starts with the count of the rest ("8900 more issues
 * not listed"); that issue is a count, not a problem of its own.
 */
export function countedIssues(issues: readonly Issue[]): { listed: readonly Issue[]; total: number } {
  const last = issues[issues.length - 1];
  if (last?.code !== 'too_many_issues') return { listed: issues, total: issues.length };
  const dropped = Number(/^\d+/.exec(last.message)?.[0]);
  // Should the message ever lose its count, the closing issue stays listed, as the library wrote it.
  return Number.isSafeInteger(dropped) ? { listed: issues.slice(0, -1), total: issues.length - 1 + dropped } : { listed: issues, total: issues.length };
}
