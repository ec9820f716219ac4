import type { AnyEvent } from '../events/event';
import type { CliIo } from './io';
import { UsageError } from './usage-error';

/** How `decode`, `show`, `run` and `session` write their events: a transcript for a person, or JSON lines. */
export type OutputFormat = 'pretty' | 'jsonl';

/** The output options a command line gives: `--format` (none: decided by the output) and `--verbose`. */
export interface FormatOptions {
  readonly format?: OutputFormat;
  readonly verbose: boolean;
}

/** `--format`'s value checked (a usage error otherwise); undefined when not given. */
export function formatOption(value: string | undefined): OutputFormat | undefined {
  if (value === undefined) return undefined;
  if (value !== 'pretty' && value !== 'jsonl') throw new UsageError(`--format must be pretty or jsonl; got ${JSON.stringify(value)}`);
  return value;
}

/** Writes events as text: one JSON line each, or a transcript. */
export interface EventWriter {
  readonly pretty: boolean;
  /** The text of one event (a transcript may hold it back: then ''). */
  event(event: AnyEvent): string;
  /** What is left at the end. */
  end(): string;
}

/**
 * The writer for `options` on `io.stdout`: a transcript when asked, or when no format is asked and
 * stdout is a terminal (as `gh` and `docker` decide); JSON lines otherwise, exactly as these
 * commands always wrote them. The terminal code is loaded only for a transcript: a pipe pays nothing.
 */
export async function eventWriter(options: FormatOptions, io: CliIo): Promise<EventWriter> {
  const stdout = io.stdout as CliIo['stdout'] & { isTTY?: boolean; columns?: number };
  const pretty = (options.format ?? (stdout.isTTY === true ? 'pretty' : 'jsonl')) === 'pretty';
  if (!pretty) return { pretty, event: (event) => `${JSON.stringify(event)}\n`, end: () => '' };
  const { Transcript, transcriptOptionsFor } = await import('../terminal/transcript');
  const transcript = new Transcript(transcriptOptionsFor(stdout, io.env ?? process.env, options.verbose));
  return { pretty, event: (event) => transcript.push(event), end: () => transcript.end() };
}
