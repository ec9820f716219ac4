import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import ts from 'typescript';

/** The NestJS 11 starter's compiler options (./tsconfig.json): target ES2023, so useDefineForClassFields. */
export function starterOptions(): ts.CompilerOptions {
  const configPath = join(__dirname, 'tsconfig.json');
  const { config } = ts.readConfigFile(configPath, ts.sys.readFile);
  return ts.parseJsonConfigFileContent(config, ts.sys, __dirname).options;
}

/**
 * Compiles one TypeScript file (or source text) with the starter's options (and `overrides`)
 * into a temp dir and requires it. Imports are made absolute (resolved from `file`), so the library is the one this test
 * process loaded (one copy of its classes and decorator metadata).
 */
export function requireCompiled<T>(file: string, source = readFileSync(file, 'utf8'), overrides: ts.CompilerOptions = {}): T {
  const compilerOptions = { ...starterOptions(), module: ts.ModuleKind.CommonJS, ...overrides };
  const { outputText } = ts.transpileModule(source, { compilerOptions, fileName: file });
  const absolute = outputText.replace(/require\("([^"]*)"\)/g, (_, spec: string) => {
    const path = spec.startsWith('.') ? resolve(dirname(file), spec) : require.resolve(spec, { paths: [dirname(file)] });
    return `require(${JSON.stringify(path)})`;
  });
  const out = join(mkdtempSync(join(tmpdir(), 'starter-')), 'compiled.js');
  writeFileSync(out, absolute);
  return require(out) as T;
}
