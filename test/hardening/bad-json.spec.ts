import 'reflect-metadata';
import fc from 'fast-check';
import { Event, PAYLOAD_CLASSES, SchemaError, ToolDescriptor } from '../../src';
import { MODES, TEST_TIMEOUT_MS, badJsonText, numRuns } from './arbitraries';

jest.setTimeout(TEST_TIMEOUT_MS);

/*
 * Bad JSON lines: fromJSON throws a SchemaError (tag invalid_event, one issue with code `json`
 * at the root), safeFromJSON answers it, never a raw SyntaxError. Lines come from valid event
 * lines, cut short, with a character inserted, replaced or removed, and from arbitrary text.
 */

const RUNS = numRuns(200);

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

describe.each(MODES)('bad JSON lines (%s path)', (mode) => {
  it('fromJSON: every text JSON.parse refuses is a SchemaError invalid_event with one json issue, never a SyntaxError', () => {
    let bad = 0;
    fc.assert(
      fc.property(badJsonText, (text) => {
        const result = Event.safeFromJSON(text, { mode });
        let thrown: unknown;
        try {
          Event.fromJSON(text, { mode });
        } catch (error) {
          thrown = error;
        }
        if (isJson(text)) {
          // still JSON after the corruption: any outcome but a json issue
          if (!result.success) expect(result.error.issues.some((issue) => issue.code === 'json')).toBe(false);
          return;
        }
        bad++;
        expect(result.success).toBe(false);
        expect(thrown).toBeInstanceOf(SchemaError);
        for (const error of [thrown as SchemaError, result.success ? undefined : result.error]) {
          expect(error).toMatchObject({ tag: 'invalid_event', issues: [{ code: 'json', path: [] }] });
          expect(error!.issues).toHaveLength(1);
          expect(error!.issues[0].message).toMatch(/^invalid JSON: /);
          expect(error!.message.length).toBeLessThan(200);
        }
      }),
      { numRuns: RUNS },
    );
    expect(bad).toBeGreaterThan(RUNS / 2); // the generator mostly makes bad JSON
  });

  it('payload and tool fromJSON: the same json issue, with their own tags', () => {
    fc.assert(
      fc.property(
        badJsonText.filter((text) => !isJson(text)),
        (text) => {
          for (const [run, tag] of [
            [() => PAYLOAD_CLASSES.tool_use.fromJSON(text, { mode }), 'invalid_payload'],
            [() => ToolDescriptor.fromJSON(text, { mode }), 'invalid_tool'],
          ] as const) {
            expect(run).toThrow(SchemaError);
            try {
              run();
            } catch (error) {
              expect(error).toMatchObject({ tag, issues: [{ code: 'json', path: [] }] });
            }
          }
        },
      ),
      { numRuns: Math.ceil(RUNS / 2) },
    );
  });

  it('JSON that is not an object (array, string, number, null, true) is invalid_type at the root, not a json issue', () => {
    for (const text of ['[]', '"raw"', '1', 'null', 'true', '[{"kind":"raw"}]']) {
      expect(Event.safeFromJSON(text, { mode })).toMatchObject({
        success: false,
        error: { tag: 'invalid_event', issues: [{ code: 'invalid_type', path: [] }] },
      });
    }
  });

  it('surrounding whitespace and a trailing newline are fine (JSON allows them); a BOM is not', () => {
    expect(Event.fromJSON(' \t{"kind":"raw"}\r\n', { mode }).kind).toBe('raw');
    expect(Event.safeFromJSON('\ufeff{"kind":"raw"}', { mode })).toMatchObject({ success: false, error: { issues: [{ code: 'json' }] } });
  });
});
