/**
 * Where an instance keeps its unknown keys: a symbol-keyed slot behind the `extra` accessor.
 * JSON.stringify skips symbol keys, so an instance with no unknown keys can be written
 * out as it stands (see `Model.toJSON`), without first being copied into a plain object.
 */
export const EXTRA: unique symbol = Symbol('extra');

/** An instance as the engine sees it: fields by name, plus the `extra` slot. */
export type Instance = Record<string, unknown> & { [EXTRA]: Record<string, unknown> };
