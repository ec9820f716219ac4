/**
 * One stream of text (the assistant's answer, or its thinking) as a projection sends it: a CLI that
 * streams deltas also sends the whole message after them (Claude's partial mode, Gemini and every
 * ACP agent here, Codex's app-server), and a client must not see the text twice. Deltas are sent as
 * they come; a whole message sends only what its deltas did not.
 */
export class StreamedText {
  private streamed = '';

  /** A delta: sent as it is, and remembered. */
  delta(text: string): string {
    this.streamed += text;
    return text;
  }

  /**
   * A whole message: the part its deltas did not send ('' when they sent it all; all of it when
   * none came). What was streamed is forgotten: the next message starts afresh.
   */
  whole(text: string): string {
    const streamed = this.streamed;
    this.streamed = '';
    if (streamed === '') return text;
    if (text.startsWith(streamed)) return text.slice(streamed.length);
    // Deltas that say more than the message (a message cut short): nothing is new.
    if (streamed.startsWith(text)) return '';
    return text;
  }

  /** Whether deltas of the current message were sent. */
  get open(): boolean {
    return this.streamed !== '';
  }

  /** Forgets the deltas (a turn ended without their whole message). */
  reset(): void {
    this.streamed = '';
  }
}
