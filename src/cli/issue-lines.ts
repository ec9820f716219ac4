import { formatPath } from '../schema/issue';
import type { SchemaError } from '../index';

/** One line per issue, compiler style: `file:line: path: message (code)`. */
export function formatIssues(source: string, lineNumber: number, error: SchemaError): string {
  return error.issues.map((issue) => `${source}:${lineNumber}: ${formatPath(issue.path) || '(root)'}: ${issue.message} (${issue.code})\n`).join('');
}
