import type { IssuePath, SchemaError } from '../index';

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** An issue path as text: `payload.args[1]`, `payload["a b"]`, or `(root)` for the whole line. */
export function formatPath(path: IssuePath): string {
  if (path.length === 0) return '(root)';
  let text = '';
  for (const part of path) {
    if (typeof part === 'number') text += `[${part}]`;
    else if (IDENTIFIER.test(part)) text += text ? `.${part}` : part;
    else text += `[${JSON.stringify(part)}]`;
  }
  return text;
}

/** One line per issue, compiler style: `file:line: path: message (code)`. */
export function formatIssues(source: string, lineNumber: number, error: SchemaError): string {
  return error.issues.map((issue) => `${source}:${lineNumber}: ${formatPath(issue.path)}: ${issue.message} (${issue.code})\n`).join('');
}
