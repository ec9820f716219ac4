import 'reflect-metadata';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { createRunsHandler, openRunStore } from '../../src';
import { CLIS, SESSION_CLI_IDS } from '../../src/clis';
import { StreamedText } from '../../src/projections/streamed-text';
import { messageText } from '../../src/projections/approval-call';
import { toolOutputText } from '../../src/projections/tool-output';
import type { JsonValue } from '../../src/schema/json';
import { listen } from './listen';

/**
 * The runs page as served: its files, what the registry fills in, and the headers; and the page's
 * text rules (src/scale/page/text.js, for a browser without modules) against the library's own.
 */
describe('the runs page', () => {
  let served: Awaited<ReturnType<typeof listen>>;
  beforeAll(async () => {
    served = await listen(createRunsHandler(openRunStore(), { token: 'a-token-of-sixteen-or-more' }));
  });
  afterAll(() => served.close());

  const get = (path: string) => fetch(`${served.base}${path}`);

  it("lists the registry's session CLIs as its options, by id and name, in the registry's order", async () => {
    const html = await (await get('/')).text();
    const providers = /<select id="provider"[^>]*>([^]*?)<\/select>/.exec(html)?.[1] ?? '';
    const options = [...providers.matchAll(/<option value="([^"]+)">([^<]+)<\/option>/g)].map(([, id, name]) => [id, name]);
    expect(options).toEqual(SESSION_CLI_IDS.map((id) => [id, CLIS[id].name]));
    expect(SESSION_CLI_IDS.length).toBeGreaterThan(3);
  });

  it('serves every file the page names, each with its type and the security headers; nothing inline runs', async () => {
    const page = await get('/');
    const html = await page.text();
    const named = [...html.matchAll(/<(?:script src|link rel="stylesheet" href)="([^"]+)"/g)].map(([, path]) => path);
    expect(named).toEqual(['/page.css', '/text.js', '/page.js']);
    // No inline script or style: the CSP lets none run.
    expect(html).not.toMatch(/<script>|<style|\son[a-z]+=/);
    for (const [path, type] of [
      ['/', 'text/html'],
      ...named.map((each) => [each, each.endsWith('.css') ? 'text/css' : 'text/javascript']),
    ]) {
      const answer = path === '/' ? page : await get(path);
      expect([path, answer.status, answer.headers.get('content-type')]).toEqual([path, 200, `${type}; charset=utf-8`]);
      const csp = answer.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
      expect(answer.headers.get('referrer-policy')).toBe('no-referrer');
    }
    expect(await (await get('/page.js')).text()).toBe(readFileSync(join(__dirname, '../../src/scale/page/page.js'), 'utf8'));
    expect((await get('/nope.js')).status).toBe(404);
  });

  describe("text.js's rules are the library's", () => {
    const text = runInNewContext(`${readFileSync(join(__dirname, '../../src/scale/page/text.js'), 'utf8')}; pageText`) as {
      StreamedText: new () => { delta(text: string): string; whole(text: string): string };
      messageText(content: JsonValue[]): string;
      toolOutputText(content: JsonValue | undefined): string;
      costText(usage: unknown): string;
      changesText(changes: unknown): string;
      whenText(iso: unknown): string;
    };
    // Values made in another context: compared by their JSON, as the page shows them.
    const same = (a: unknown, b: unknown) => expect(JSON.stringify(a)).toEqual(JSON.stringify(b));
    const block = fc.oneof(
      fc.string(),
      fc.record(
        { type: fc.constantFrom('text', 'image', 'tool_use'), text: fc.oneof(fc.string(), fc.integer()) },
        { requiredKeys: ['type'] },
      ),
      fc.jsonValue() as fc.Arbitrary<JsonValue>,
    );

    it('StreamedText: deltas and whole messages in any order', () => {
      const step = fc.tuple(
        fc.constantFrom('delta', 'whole'),
        fc.oneof(fc.constantFrom('', 'Hel', 'Hello', 'Hello world', 'lo'), fc.string()),
      );
      fc.assert(
        fc.property(fc.array(step, { maxLength: 12 }), (steps) => {
          const page = new text.StreamedText();
          const library = new StreamedText();
          same(
            steps.map(([kind, chunk]) => page[kind as 'delta' | 'whole'](chunk)),
            steps.map(([kind, chunk]) => library[kind as 'delta' | 'whole'](chunk)),
          );
        }),
      );
    });

    it('messageText and toolOutputText', () => {
      fc.assert(fc.property(fc.array(block, { maxLength: 5 }), (content) => same(text.messageText(content), messageText(content))));
      const output = fc.oneof(
        block,
        fc.array(block, { maxLength: 4 }),
        fc.record({ content: fc.array(block, { maxLength: 3 }) }),
        fc.dictionary(
          fc.constantFrom('text', 'output', 'stdout', 'aggregated_output', 'diffString', 'message', 'error', 'other'),
          fc.oneof(fc.string(), fc.integer()),
        ),
      ) as fc.Arbitrary<JsonValue>;
      fc.assert(fc.property(output, (content) => same(text.toolOutputText(content), toolOutputText(content))));
      same(text.toolOutputText(undefined), toolOutputText(undefined));
      // Each text field alone, and after an empty one: the field list and its order are the library's.
      const fields = ['text', 'output', 'stdout', 'aggregated_output', 'aggregatedOutput', 'diffString', 'message', 'error', 'other'];
      for (const field of fields) {
        same(text.toolOutputText({ [field]: 'x' }), toolOutputText({ [field]: 'x' }));
        for (const later of fields) same(text.toolOutputText({ [field]: '', [later]: 'y' }), toolOutputText({ [field]: '', [later]: 'y' }));
      }
    });

    it("the page's own wording of a record's figures: usage, changes, times", () => {
      const usage = { input_tokens: 12, output_tokens: 30, total_tokens: 42, cost_usd: 0.01234 };
      expect(text.costText(usage)).toBe('42 tokens (12 in, 30 out) · $0.0123');
      // No price reported (null) or $0: left out, not shown as free.
      expect(text.costText({ ...usage, cost_usd: null })).toBe('42 tokens (12 in, 30 out)');
      expect(text.costText({ ...usage, cost_usd: 0 })).toBe('42 tokens (12 in, 30 out)');
      expect(text.costText(null)).toBe('');
      expect(text.changesText({ files: 2, insertions: 3, deletions: 1 })).toBe('2 files changed, +3 −1');
      expect(text.changesText({ files: 1, insertions: 1, deletions: 0 })).toBe('1 file changed, +1 −0');
      expect([text.changesText({ files: 0, insertions: 0, deletions: 0 }), text.changesText(null)]).toEqual(['', '']);
      const at = new Date(2026, 0, 5, 9, 7);
      expect(text.whenText(at.toISOString())).toBe('2026-01-05 09:07');
      expect([text.whenText(null), text.whenText('not a time')]).toEqual(['', '']);
    });
  });
});
