import type { JsonObject, JsonValue } from '../schema/json';

/*
 * Why a decoder holds anything once a line is decoded: optimized code refers weakly to the hidden
 * classes (maps) of the objects it reads and makes. In a stream whose lines are garbage once
 * decoded, a full GC collects the maps of the lines' JSON.parse objects, of the profile's state and
 * of the events, and every function that used them is thrown away and compiled again (bench/decode.ts
 * forces a full GC before each provider's block: without anything held, decoding took up to 9× a
 * JSON.parse of the same lines instead of 2-4×). What is held here is shapes, never data: now and
 * then a line's skeleton (its keys in order, its discriminators such as `type`, and values of the
 * same representation: strings "", integers 0, other numbers 0.5, booleans false) is decoded by a
 * shadow decoder of the same profile, and the skeleton, that decoder and its latest events are
 * held. Nothing the CLI said (prompts, files, output, ids) stays in memory after its run.
 */

/** How many skeletons, and their events, a profile holds (the fixtures' transcripts repeat their shapes every 4 to 161 lines). */
const HELD = 64;
/** One line in this many is copied: the cost stays off most lines, and shapes that recur are caught. */
const EVERY = 16;
/** Deeper levels, longer arrays and bigger objects are not copied: their shapes are rare or the data's own. */
const MAX_DEPTH = 6;
const MAX_ITEMS = 4;
const MAX_KEYS = 32;
/**
 * A key that is not a short identifier (a file path, a sentence) is the data's, not the protocol's
 * (Codex keys file changes by path): an object with one is not copied.
 */
const PROTOCOL_KEY = /^[A-Za-z_$][\w$-]{0,39}$/;
/** The keys whose string value picks a profile's branch: kept when they look like protocol vocabulary. */
const DISCRIMINATORS = new Set(['type', 'subtype', 'kind', 'role', 'method', 'status', 'event']);
const PROTOCOL_WORD = /^[A-Za-z_][\w./:-]{0,39}$/;

/** A decoder of skeletons (a shadow of the profile's decoder). */
export interface ShadowDecoder {
  push(line: string): unknown;
}

/** The shapes held for one profile. */
export class ShapeHold {
  private readonly skeletons: unknown[] = new Array<unknown>(HELD).fill(null);
  private readonly events: unknown[] = new Array<unknown>(HELD).fill(null);
  private next = 0;
  private count = EVERY - 1;
  private shadow: ShadowDecoder | null = null;

  /** Notes a decoded line's JSON value: now and then its skeleton is decoded by the shadow (made by `makeShadow`) and held. */
  note(line: JsonObject, makeShadow: () => ShadowDecoder): void {
    if (++this.count < EVERY) return;
    this.count = 0;
    const skeleton = skeletonOf(line, 0);
    if (skeleton === undefined) return;
    const text = JSON.stringify(skeleton);
    this.shadow ??= makeShadow();
    const at = this.next;
    this.skeletons[at] = JSON.parse(text);
    this.events[at] = this.shadow.push(text);
    this.next = at + 1 === HELD ? 0 : at + 1;
    // A new shadow each round of the ring: its profile state (keyed by "" ids) never grows for long.
    if (this.next === 0) this.shadow = null;
  }
}

/** @internal `value`'s skeleton: its shape with none of its data; undefined when it is not worth holding. */
export function skeletonOf(value: JsonValue, depth: number, key = ''): unknown {
  if (value === null) return null;
  switch (typeof value) {
    case 'string':
      return DISCRIMINATORS.has(key) && PROTOCOL_WORD.test(value) ? value : '';
    case 'number':
      return Number.isInteger(value) && Math.abs(value) < 2 ** 30 ? 0 : 0.5;
    case 'boolean':
      return false;
  }
  if (depth >= MAX_DEPTH) return undefined;
  if (Array.isArray(value)) {
    const items: unknown[] = [];
    for (let i = 0; i < value.length && i < MAX_ITEMS; i++) {
      const item = skeletonOf(value[i], depth + 1);
      if (item !== undefined) items.push(item);
    }
    return items;
  }
  const keys = Object.keys(value);
  if (keys.length > MAX_KEYS) return undefined;
  const skeleton: Record<string, unknown> = {};
  for (const name of keys) {
    if (name === '__proto__' || !PROTOCOL_KEY.test(name)) return undefined;
    const item = skeletonOf(value[name], depth + 1, name);
    // A part not copied keeps its key: the object keeps its own shape.
    skeleton[name] = item === undefined ? null : item;
  }
  return skeleton;
}

const HOLDS = new WeakMap<object, ShapeHold>();

/** The shapes held for `profile` (a profile object, or a key standing for "not detected yet"). */
export function shapeHoldFor(profile: object): ShapeHold {
  let hold = HOLDS.get(profile);
  if (!hold) {
    hold = new ShapeHold();
    HOLDS.set(profile, hold);
  }
  return hold;
}
