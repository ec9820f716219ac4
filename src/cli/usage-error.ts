/** A command line that cannot be understood; the CLI prints it with the usage and exits 2. */
export class UsageError extends Error {}
