import { createColors } from 'picocolors';

/** The colours a transcript uses: picocolors' functions, each the identity when colour is off. */
export type Palette = ReturnType<typeof createColors>;

/** What decides colour: the output stream and the environment. */
export interface ColorSource {
  readonly isTTY?: boolean;
}

/**
 * Whether to write colour to `stream`, as Node's own `getColorDepth` decides it: `FORCE_COLOR` wins
 * when set (`0` or `false` turns colour off, any other value on, even into a pipe); else a non-empty
 * `NO_COLOR` turns it off (no-color.org); else colour when the stream is a terminal that is not `dumb`.
 */
export function colorEnabled(stream: ColorSource, env: NodeJS.ProcessEnv): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force !== '0' && force.toLowerCase() !== 'false';
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  return stream.isTTY === true && env.TERM !== 'dumb';
}

/** The palette for `enabled` colour. */
export function palette(enabled: boolean): Palette {
  return createColors(enabled);
}
