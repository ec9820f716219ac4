/** Characters of the line shown on each side of the position of a JSON error. */
const EXCERPT_SIDE = 20;

// V8's own messages: "… in JSON at position 39", "… after JSON at position 15", "Unexpected end of JSON input", and for a bad
// token "Unexpected token '}', "{"kind":}" is not valid JSON" with up to 10 characters of context
// each side ("…"x"…"), but no position.
const AT_POSITION = /(?: in JSON)? at position (\d+)/;
const UNEXPECTED_TOKEN = /^(Unexpected token '[^']*'), (?:\.\.\.)?"([\s\S]*)"(?:\.\.\.)? is not valid JSON$/;
const TOKEN_CONTEXT = 10;

/** The longest description: an issue message stays short whatever the line holds (escapes included). */
const MAX_DESCRIPTION = 160;

/**
 * Why `line` is not JSON, from JSON.parse's `message`, with the position and a short excerpt
 * around it: `invalid JSON: Unterminated string at position 39, near …"ntent\":\"abc"`. V8's own
 * text puts the position last, so cutting it short (as any bounded message must) lost the one
 * useful part; the CLI's report and every `json` issue use this one description.
 */
export function describeJsonError(line: string, message: string): string {
  const located = locate(message, line);
  const text = located
    ? `invalid JSON: ${located.what} at position ${located.position}, near ${excerpt(line, located.position)}`
    : `invalid JSON: ${message}`;
  return text.length > MAX_DESCRIPTION ? `${text.slice(0, MAX_DESCRIPTION - 1)}…` : text;
}

function locate(message: string, line: string): { what: string; position: number } | undefined {
  const at = AT_POSITION.exec(message);
  if (at) return { what: message.slice(0, at.index), position: Number(at[1]) };
  if (message === 'Unexpected end of JSON input') return { what: 'unexpected end of input', position: line.length };
  const token = UNEXPECTED_TOKEN.exec(message);
  if (!token) return undefined;
  // The context is unique in the line in practice; when it is not, the first match is as good a guess as any.
  const context = token[2];
  const found = line.indexOf(context);
  if (found === -1) return undefined;
  const position = message.includes(', ..."') ? found + TOKEN_CONTEXT : found + Math.max(0, context.indexOf(tokenText(token[1])));
  return { what: token[1], position };
}

/** `'}'` of "Unexpected token '}'". */
function tokenText(unexpected: string): string {
  return unexpected.slice("Unexpected token '".length, -1);
}

/** Up to EXCERPT_SIDE characters each side of `position`, quoted, with `…` where the line goes on. */
function excerpt(line: string, position: number): string {
  const from = Math.max(0, position - EXCERPT_SIDE);
  const to = Math.min(line.length, position + EXCERPT_SIDE);
  return `${from > 0 ? '…' : ''}${JSON.stringify(line.slice(from, to))}${to < line.length ? '…' : ''}`;
}
