import type { AnyRegistry } from '../registry/registry';

export type { AnyRegistry };

/** Options of `CliSubprocessCoreModule.forRoot`. */
export interface CliSubprocessCoreOptions {
  /** Which payload class parses each kind; `Registry.default` unless given. */
  registry?: AnyRegistry;
  /** Register the module globally, so every module can inject `EventParser` without importing it. */
  isGlobal?: boolean;
  /**
   * Install `SchemaErrorFilter` app-wide, so a `SchemaError` thrown in any route answers 400 with
   * the issues instead of 500 (default `true`).
   */
  schemaErrorFilter?: boolean;
}

/** Injection token of the module's options; pipes and `EventParser` read the registry from it. */
export const CLI_SUBPROCESS_CORE_OPTIONS = Symbol('CLI_SUBPROCESS_CORE_OPTIONS');
