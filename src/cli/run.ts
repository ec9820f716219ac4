import { USAGE, parseArgs } from './args';
import { decodeCommand } from './decode-command';
import { CliIo } from './io';
import { usageFailure } from './usage-error';
import { runCommand } from './run-command';
import { schemaCommand } from './schema-command';
import { sessionCommand } from './session-command';
import { acpCommand } from './acp-command';
import { serveCommand, workerCommand } from './serve-command';
import { validateCommand } from './validate-command';

/** Runs one command line and answers its exit code (2 for usage errors). */
export async function run(argv: readonly string[], io: CliIo): Promise<number> {
  // These read the CLIs' stores, or hold a chat in the terminal, and parse their own options; loaded only when asked for.
  if (argv[0] === 'history') return (await import('./history-command')).historyCommand(argv.slice(1), io);
  if (argv[0] === 'usage') return (await import('./usage-command')).usageCommand(argv.slice(1), io);
  if (argv[0] === 'chat') return (await import('./chat-command')).chatCommand(argv.slice(1), io);
  let command;
  try {
    command = parseArgs(argv);
  } catch (error) {
    return usageFailure(error, io, USAGE);
  }
  switch (command.name) {
    case 'help':
      io.stdout.write(USAGE);
      return 0;
    case 'schema':
      return schemaCommand(command.kind, io);
    case 'validate':
      return validateCommand(command, io);
    case 'decode':
      return decodeCommand(command, io);
    case 'show':
      return decodeCommand({ ...command, provider: 'auto', keepRaw: 'all', show: true }, io);
    case 'run':
      return runCommand(command.options, io, process, command.output);
    case 'session':
      return sessionCommand(command.options, io, process, command.output);
    case 'acp':
      return acpCommand(command.options, io, command.historyDir, command.login);
    case 'serve':
      return serveCommand(command.options, io);
    case 'worker':
      return workerCommand(command.options, io);
  }
}
