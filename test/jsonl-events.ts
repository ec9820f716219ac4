import { Event, type AnyEvent } from '../src';

/** Every line a command wrote as an event: each one valid, and written exactly as `JSON.stringify(event)`. */
export function jsonlEvents(stdout: string): AnyEvent[] {
  return stdout
    .trimEnd()
    .split('\n')
    .map((line) => {
      const event = Event.fromJSON(line);
      expect(JSON.stringify(event)).toBe(line);
      return event;
    });
}
