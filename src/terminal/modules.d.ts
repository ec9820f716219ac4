// Types of the two terminal libraries that ship none (the CommonJS builds this package loads).

declare module 'marked-terminal' {
  import type { MarkedExtension } from 'marked';
  /** marked-terminal's options: a style function per Markdown element, the width, and layout switches. */
  export function markedTerminal(options?: Record<string, unknown>, highlightOptions?: Record<string, unknown>): MarkedExtension;
}

declare module 'wrap-ansi' {
  /** Wraps `text` (ANSI escapes kept) to `columns` display cells. */
  export default function wrapAnsi(text: string, columns: number, options?: { hard?: boolean; trim?: boolean; wordWrap?: boolean }): string;
}
