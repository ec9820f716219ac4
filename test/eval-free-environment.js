/*
 * The test environment of `npm run test:eval-free`: jest's node environment, whose context bans
 * code generation from strings. Node's `--disallow-code-generation-from-strings` alone does not
 * reach the tests: jest runs them in vm contexts, which allow `eval` and `new Function` unless
 * created with `codeGeneration: { strings: false }` (measured: `new Function` worked in a test
 * run with the flag). jest-environment-node reads `createContext` from node:vm when it builds its
 * context, so the constructor makes that one call ban it.
 *
 * Tests that use ajv cannot run here (it compiles validators with `new Function`):
 * test/json-schema.spec.ts is left out of the run, and test/cli.spec.ts skips its two.
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
