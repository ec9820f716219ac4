import type { Config } from 'jest';
import base from './jest.config';

/**
 * `npm run test:eval-free`: the specs of the model, the decoders and the history readers again, in a
 * jest environment that bans code generation from strings (test/eval-free-environment.js), where the
 * parser runs on closures instead of its generated code. The layers above (sessions, serving,
 * projections) call the same parser, so running them twice would only add to CI's time.
 *
 * Left out, because their tools (not the library) need `new Function`:
 * - ajv compiles its validators with it (test/json-schema.spec.ts).
 * - jest-snapshot reads a `.snap` file with it, so a snapshot spec finds no snapshot here (found by
 *   CI: 144 "new snapshot was not written" in test/cli-transcript.spec.ts, a command spec anyway).
 */
const config: Config = {
  ...base,
  testEnvironment: './test/eval-free-environment.js',
  testMatch: ['<rootDir>/test/*.spec.ts', '<rootDir>/test/{providers,hardening,history,wire,clis}/**/*.spec.ts'],
  testPathIgnorePatterns: [
    '/node_modules/',
    '/json-schema\\.spec\\.ts',
    // The command's specs run it in a child process, out of this environment's reach.
    '/test/cli(-[a-z-]+)?\\.spec\\.ts',
    // They build or install the package: nothing of the parser to run again.
    '/pack\\.spec\\.ts',
    '/package\\.spec\\.ts',
  ],
};

export default config;
