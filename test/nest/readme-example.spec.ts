import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/* docs/nest.md shows readme-starter-app.ts verbatim; readme-starter-app.spec.ts runs it. */
describe("docs/nest.md's NestJS example", () => {
  it('the recommended setup (readme-starter-app.ts) is shown verbatim in docs/nest.md', () => {
    const readme = readFileSync(join(__dirname, '../../docs/nest.md'), 'utf8');
    const example = readFileSync(join(__dirname, 'readme-starter-app.ts'), 'utf8')
      .replace("from '../../src/nest'", "from 'cli-subprocess-core/nest'")
      .replace("from '../../src'", "from 'cli-subprocess-core'");
    expect(readme).toContain(example);
  });
});
