import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { Event, type AnyEvent } from '../../src';
import { fixtures } from '../providers/fixtures';
import { captures } from '../sessions/captures';

/** A recorded stream of events: a provider fixture's golden (one run) or a session capture's (a session). */
export interface EventSource {
  readonly label: string;
  readonly provider: string;
  readonly events: AnyEvent[];
}

/** Every golden of every provider fixture and session capture, as events. */
export function eventSources(): EventSource[] {
  const read = (path: string) =>
    readFileSync(path, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => Event.parse(JSON.parse(line)));
  return [
    ...fixtures().map((fixture) => ({
      label: `${fixture.provider}/${fixture.name}`,
      provider: fixture.provider,
      events: read(fixture.goldenPath),
    })),
    ...captures().map((capture) => ({
      label: `session ${capture.cli}/${capture.name}`,
      provider: capture.cli,
      events: read(capture.goldenPath),
    })),
  ];
}
