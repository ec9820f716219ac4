import type { CliIo } from './io';

/** A command line that cannot be understood; the CLI prints it with the usage and exits 2. */
export class UsageError extends Error {}

/**
 * The answer to a command line that failed with `error`: a UsageError is printed on stderr with the
 * command's `usage` text, exit code 2; anything else is rethrown (a bug, not the caller's line).
 */
export function usageFailure(error: unknown, io: Pick<CliIo, 'stderr'>, usage: string): 2 {
  if (!(error instanceof UsageError)) throw error;
  io.stderr.write(`cli-subprocess-core: ${error.message}\n\n${usage}`);
  return 2;
}
