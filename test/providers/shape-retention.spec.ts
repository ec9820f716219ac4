import 'reflect-metadata';
import { decoderFor } from '../../src/decode/decoder';
import type { ProviderProfile } from '../../src/providers/profile';
import { skeletonOf } from '../../src/decode/shape-retention';

describe('shape retention', () => {
  it('holds a line’s keys, order and discriminators, never its data', () => {
    const line = {
      type: 'item.completed',
      item: { id: 'item_7', type: 'agent_message', text: 'my secret plan', tokens: 12, ratio: 0.25, big: 2 ** 40, ok: true, none: null },
      list: ['a', 'b'],
    };
    const skeleton = skeletonOf(line, 0);
    expect(skeleton).toEqual({
      type: 'item.completed',
      item: { id: '', type: 'agent_message', text: '', tokens: 0, ratio: 0.5, big: 0.5, ok: false, none: null },
      list: ['', ''],
    });
    expect(Object.keys((skeleton as { item: object }).item)).toEqual(Object.keys(line.item));
    expect(JSON.stringify(skeleton)).not.toContain('secret');
  });

  it('copies no object keyed by data (file paths) and no discriminator that is a sentence', () => {
    expect(skeletonOf({ type: 'file_change', changes: { '/home/me/notes.txt': { kind: 'add' } } }, 0)).toEqual({
      type: 'file_change',
      changes: null,
    });
    expect(skeletonOf({ type: 'say this secret sentence' }, 0)).toEqual({ type: '' });
    expect(skeletonOf(JSON.parse('{"__proto__": {"polluted": 1}}'), 0)).toBeUndefined();
  });
});

describe('the shadow decoder', () => {
  it('never runs a profile that is not one of the package’s own (a session protocol’s writes to the CLI)', () => {
    let decoded = 0;
    const profile: ProviderProfile<null> = {
      id: 'claude',
      detect: () => true,
      newState: () => null,
      sessionId: () => null,
      timestamp: () => null,
      decode: () => {
        decoded += 1;
        return [{ kind: 'raw', payload: { stream: 'stdout', content: null, metadata: {} } }];
      },
    };
    const decoder = decoderFor(profile);
    for (let i = 0; i < 100; i++) decoder.push(JSON.stringify({ type: 'assistant', n: i }));
    expect(decoded).toBe(100);
  });
});
