import 'reflect-metadata';
import { capabilityMatrix, readmeMatrix } from '../../scripts/capability-matrix';

/*
 * The README's CLI × capability table is the registry's: regenerate it with `npm run matrix -- --write`.
 */
describe("the README's capability matrix", () => {
  it('is the one the registry and the e2e pins give', () => {
    expect(readmeMatrix()).toBe(capabilityMatrix());
  });
});
