import { Marked } from 'marked';
import { markedTerminal } from 'marked-terminal';
import { stripVTControlCharacters } from 'node:util';
import type { Palette } from './style';

/** Renders Markdown for a terminal of some width, in the palette's colours. */
export type MarkdownRenderer = (markdown: string) => string;

/**
 * A Markdown renderer (marked with marked-terminal) whose every style is the palette's, so that
 * colour follows the transcript's choice (NO_COLOR, FORCE_COLOR, a pipe) rather than the library's
 * own detection on process.stdout. Code blocks are drawn here, indented in one colour: the
 * library's highlighter decides colour on its own, which a test could not pin.
 */
export function markdownRenderer(width: number, colors: Palette): MarkdownRenderer {
  const marked = new Marked(
    markedTerminal({
      width,
      reflowText: true,
      tab: 2,
      emoji: false,
      showSectionPrefix: false,
      code: colors.yellow,
      blockquote: (text: string) => colors.gray(colors.italic(text)),
      html: colors.gray,
      heading: (text: string) => colors.green(colors.bold(text)),
      firstHeading: (text: string) => colors.magenta(colors.bold(text)),
      hr: identity,
      listitem: identity,
      table: identity,
      paragraph: identity,
      strong: colors.bold,
      em: colors.italic,
      codespan: colors.yellow,
      del: (text: string) => colors.dim(colors.strikethrough(text)),
      link: colors.blue,
      href: (text: string) => colors.blue(colors.underline(text)),
      text: identity,
      tableOptions: { style: { head: [], border: [] } },
    }),
    {
      renderer: {
        code({ text }) {
          const body = text.replace(/\n+$/, '');
          return `${body
            .split('\n')
            .map((line) => (line === '' ? '' : `  ${colors.yellow(line)}`))
            .join('\n')}\n\n`;
        },
      },
    },
  );
  return (markdown) => {
    const rendered = (marked.parse(markdown, { async: false }) as string).replace(/\n+$/, '');
    // The table library colours on its own: with colour off, no escape may be left.
    return colors.isColorSupported ? rendered : stripVTControlCharacters(rendered);
  };
}

const identity = (text: string): string => text;
