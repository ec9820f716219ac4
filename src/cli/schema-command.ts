import { Event, PAYLOAD_CLASSES, isEventKind, KINDS } from '../index';
import { CliIo } from './io';

/** `schema [kind]`: prints the Event's JSON Schema, or one kind's payload schema; an unknown kind exits 2. */
export function schemaCommand(kind: string | undefined, io: CliIo): number {
  if (kind !== undefined && !isEventKind(kind)) {
    io.stderr.write(`cli-subprocess-core: unknown kind: ${kind}\nkinds: ${KINDS.join(', ')}\n`);
    return 2;
  }
  const schema = kind === undefined ? Event.schema() : PAYLOAD_CLASSES[kind].schema();
  io.stdout.write(`${JSON.stringify(schema, null, 2)}\n`);
  return 0;
}
