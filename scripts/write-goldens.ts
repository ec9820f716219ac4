/*
 * Writes <name>.events.jsonl next to each provider fixture from the current decoders, and
 * wire-<name>.events.jsonl next to each session capture from the current protocols.
 * Usage: npx ts-node --transpile-only scripts/write-goldens.ts [provider] [name]
 * A golden is only as good as its reading: read every line it writes before committing it.
 */
import { writeFileSync } from 'node:fs';
import { decodeFixture, fixtures } from '../test/providers/fixtures';
import type { ProviderId } from '../src/decode/provider-id';
import { captures, play } from '../test/sessions/captures';

const [provider, name] = process.argv.slice(2);
for (const fixture of fixtures(provider as ProviderId | undefined)) {
  if (name && fixture.name !== name) continue;
  const events = decodeFixture(fixture);
  writeFileSync(fixture.goldenPath, events.map((event) => JSON.stringify(event)).join('\n') + '\n');
  process.stdout.write(`${fixture.goldenPath}: ${events.length} events\n`);
}
void (async () => {
  for (const capture of captures()) {
    if ((provider && capture.cli !== provider) || (name && capture.name !== name)) continue;
    const { events } = await play(capture);
    writeFileSync(capture.goldenPath, events.map((event) => JSON.stringify(event)).join('\n') + '\n');
    process.stdout.write(`${capture.goldenPath}: ${events.length} events\n`);
  }
})();
