/*
 * A value placed after a flag (`--model <value>`) must stay a value. The CLIs parse their argv with
 * option parsers (yargs, commander, clap) that read a next element starting with "-" as a flag of
 * its own: a request's model `--mcp-config={…}` given to Qwen Code after `--model` configured an MCP
 * server, which ran a shell command. Control characters have no place in a model, a session id or a
 * tool name either, and a newline could forge a line wherever the value is logged or echoed.
 */

/** U+0000–U+001F and U+007F: NUL, newlines, escapes. */
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

/**
 * Throws a TypeError when `value`, placed after a flag, would not stay that flag's value: it starts
 * with "-" (an option parser reads it as a flag of its own), or holds a control character
 * (U+0000–U+001F, U+007F: a NUL cannot be passed at all). `what` names the option in the message.
 *
 * @example
 * refuseFlagLike('model', 'gpt-4o'); // fine
 * refuseFlagLike('model', '--yolo'); // TypeError: model must not start with "-" or hold control characters …
 */
export function refuseFlagLike(what: string, value: string): void {
  if (typeof value !== 'string') throw new TypeError(`${what} must be a string; got ${typeof value}`);
  if (value.startsWith('-') || CONTROL_CHARACTER.test(value)) {
    throw new TypeError(
      `${what} must not start with "-" or hold control characters (it would be read as a flag): got ${JSON.stringify(value)}`,
    );
  }
}
