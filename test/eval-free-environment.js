/*
 * The test environment of `npm run test:eval-free`: jest's node environment, whose context bans
 * code generation from strings. Node's `--disallow-code-generation-from-strings` alone does not
 * reach the tests: jest runs them in vm contexts, which allow `eval` and `new Function` unless
 * created with `codeGeneration: { strings: false }` (measured: `new Function` worked in a test
 * run with the flag). jest-environment-node reads `createContext` from node:vm when it builds its
 * context, so the constructor makes that one call ban it.
 *
 * Specs whose tools need code generation (ajv, jest-snapshot) are left out: jest.eval-free.config.ts.
 * test/cli.spec.ts skips its two ajv tests itself (canGenerateCode).
 */
const vm = require('node:vm');
const { TestEnvironment } = require('jest-environment-node');

class EvalFreeEnvironment extends TestEnvironment {
  constructor(config, context) {
    const createContext = vm.createContext;
    vm.createContext = (sandbox, options) => createContext(sandbox, { ...options, codeGeneration: { strings: false, wasm: true } });
    try {
      super(config, context);
    } finally {
      vm.createContext = createContext;
    }
  }
}

module.exports = EvalFreeEnvironment;
