/** The wire form of a model as a plain object: what `JSON.stringify` writes, read back. */
export function wire(value: object): Record<string, unknown> {
  return JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
}
