import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { Registry, ToolUsePayload } from '../src';
import { requireCompiled } from './nest/starter/compile';

/*
 * Issue #11: the NestJS 11 starter's tsconfig (target ES2023) implies useDefineForClassFields, which
 * would reset a provider subclass's declared field to undefined after `new Subclass()`. The library
 * refuses such a field when the class is defined, with one error that says how to fix it.
 */
/** `ClaudeToolUsePayload`, a provider subclass with one declared field (also built by the pack test). */
const file = `${__dirname}/nest/starter/claude-tool-use.payload.ts`;
const SUBCLASS = readFileSync(file, 'utf8');
type ServerPayload = ToolUsePayload & { server_name: string | null };
type Compiled = { ClaudeToolUsePayload: typeof ToolUsePayload };

describe('a provider subclass compiled with the NestJS 11 starter tsconfig', () => {
  it.each([
    ['native class fields (target ES2023)', {}],
    [
      'the downlevel form (target ES2021, useDefineForClassFields: true)',
      { target: ts.ScriptTarget.ES2021, useDefineForClassFields: true },
    ],
  ])('%s: one clear TypeError at class definition, naming the field and the fix', (_name, overrides) => {
    expect(() => requireCompiled(file, SUBCLASS, overrides)).toThrow(
      new TypeError(
        'ClaudeToolUsePayload.server_name: compiled with useDefineForClassFields, which resets the field to undefined after the constructor sets its default. ' +
          'Set "useDefineForClassFields": false (with "experimentalDecorators": true) in tsconfig.json, as NestJS projects do.',
      ),
    );
  });

  it('with "useDefineForClassFields": false, as the error says: the field is set by new and written to JSON', () => {
    const { ClaudeToolUsePayload } = requireCompiled<Compiled>(file, SUBCLASS, { useDefineForClassFields: false });
    const made = new ClaudeToolUsePayload() as ServerPayload;
    expect(made.server_name).toBeNull();
    expect(JSON.parse(JSON.stringify(made))).toHaveProperty('server_name', null);
    const registry = Registry.default.with('tool_use', ClaudeToolUsePayload);
    expect(registry.classFor('tool_use').parse({ server_name: ' mcp ' })).toMatchObject({ server_name: 'mcp' });
  });

  it('a field with an initializer, or a class without fields, is not refused', () => {
    const source = `
      import { OptionalTrimmedString, ToolUsePayload } from '../../../src';
      export class WithInitializer extends ToolUsePayload { @OptionalTrimmedString() server_name: string | null = null; }
      export class NoFields extends ToolUsePayload { describe(): string { return this.tool_name ?? ''; } }`;
    const compiled = requireCompiled<{ WithInitializer: new () => { server_name: unknown } }>(file, source);
    expect(new compiled.WithInitializer().server_name).toBeNull();
  });
});
