/** The slash commands of `chat`, in the order `/help` lists them. */
export const CHAT_COMMANDS = {
  model: { arg: 'M', help: 'the model and the models offered; /model M switches to M from the next turn' },
  cli: { arg: 'P', help: 'the CLIs found here; /cli P switches to CLI P (a new session)' },
  cost: { arg: null, help: 'the tokens and cost of this chat so far' },
  new: { arg: null, help: 'a new session with the same CLI and model' },
  exit: { arg: null, help: 'leave the chat (as Ctrl-D)' },
  help: { arg: null, help: 'this list' },
} as const satisfies Record<string, { arg: string | null; help: string }>;

/** A slash command's name. */
export type ChatCommandName = keyof typeof CHAT_COMMANDS;

/** What one line typed at the chat's prompt asks for. */
export type ChatLine =
  /** Nothing: the prompt is shown again. */
  | { readonly kind: 'empty' }
  /** A prompt for the agent. */
  | { readonly kind: 'prompt'; readonly text: string }
  /** A slash command, with its argument (null: none given). */
  | { readonly kind: 'command'; readonly name: ChatCommandName; readonly arg: string | null }
  /** A slash command that cannot be run as typed, and why. */
  | { readonly kind: 'mistake'; readonly message: string };

const isCommandName = (name: string): name is ChatCommandName => Object.prototype.hasOwnProperty.call(CHAT_COMMANDS, name);

/**
 * Reads one line of the prompt: `/name [argument]` is a slash command, anything else a prompt. A
 * line that starts with `//` is a prompt that starts with `/` (one slash dropped), so that a path
 * can open a prompt.
 */
export function parseChatLine(line: string): ChatLine {
  const text = line.trim();
  if (text === '') return { kind: 'empty' };
  if (text.startsWith('//')) return { kind: 'prompt', text: text.slice(1) };
  if (!text.startsWith('/')) return { kind: 'prompt', text };
  const [, name, rest] = /^\/(\S*)\s*(.*)$/s.exec(text) ?? ['', '', ''];
  if (!isCommandName(name))
    return { kind: 'mistake', message: `unknown command /${name}: /help lists them (start a prompt with // to begin it with /)` };
  const arg = rest.trim() === '' ? null : rest.trim();
  if (arg !== null && CHAT_COMMANDS[name].arg === null) return { kind: 'mistake', message: `/${name} takes no argument` };
  if (arg !== null && /\s/.test(arg)) return { kind: 'mistake', message: `/${name} takes one ${CHAT_COMMANDS[name].arg}, without spaces` };
  return { kind: 'command', name, arg };
}

/** The lines of `/help`: every command, then the keys. */
export function chatHelp(): string[] {
  const commands = Object.entries(CHAT_COMMANDS).map(([name, { arg, help }]) => {
    const usage = `/${name}${arg === null ? '' : ` [${arg}]`}`;
    return `  ${usage.padEnd(12)} ${help}`;
  });
  return [
    ...commands,
    `  ${'//…'.padEnd(12)} a prompt that starts with /`,
    '',
    '  Keys: Enter sends · ↑ ↓ history · Ctrl-C interrupts the turn (twice: leave) · Ctrl-D leaves',
    '  An approval: y allow · n deny · a always (this kind of call, for the session)',
  ];
}
