import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { modelChoice } from '../../src/protocols/acp';
import type { JsonObject } from '../../src/schema/json';

/*
 * The model choice an ACP CLI offers in its `session/new` answer (`modelChoice`), read from the real
 * CLIs' captured exchanges (test/fixtures/sessions/<cli>/wire-allow.jsonl): a config option of
 * category `model` (switched by `session/set_config_option`), or ACP's `models` (switched by
 * `session/set_model`). Gemini CLI's switch is driven end to end in e2e/test/gemini.acp.spec.ts.
 */

/** The CLI's answer to the client's `session/new` in a capture. */
function sessionNewAnswer(cli: string): JsonObject {
  const lines = readFileSync(join(__dirname, '..', 'fixtures', 'sessions', cli, 'wire-allow.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as { from: string; line: JsonObject });
  const asked = lines.find((entry) => entry.from === 'host' && entry.line.method === 'session/new');
  const answer = lines.find((entry) => entry.from === 'cli' && entry.line.id === asked?.line.id && 'result' in entry.line);
  return answer?.line.result as JsonObject;
}

/** The current model an answer states: its `model` config option's value, else `models.currentModelId`. */
function statedCurrent(answer: JsonObject): string {
  const option = (answer.configOptions as { id: string; currentValue: string }[] | undefined)?.find(
    (candidate) => candidate.id === 'model',
  );
  return option?.currentValue ?? (answer.models as { currentModelId: string }).currentModelId;
}

it.each([
  ['opencode', 'model'],
  ['kilo', 'model'],
  // Qwen Code answers both: the config option is taken.
  ['qwen', 'model'],
  // Cline's `provider` option has category `model` too: its `model` option is taken.
  ['cline', 'model'],
  ['gemini', null],
])('%s: its model choice (config option %j, null: session/set_model), the current model marked', (cli, configId) => {
  const answer = sessionNewAnswer(cli);
  const choice = modelChoice(answer);
  expect(choice?.configId).toBe(configId);
  expect(choice?.models.length).toBeGreaterThan(0);
  expect(choice?.models.filter((model) => model.current).map((model) => model.id)).toEqual([statedCurrent(answer)]);
});

it('copilot offers no model choice in its session answer; grouped options are flattened; an answer without either is none', () => {
  expect(modelChoice(sessionNewAnswer('copilot'))).toBeNull();
  expect(modelChoice(null)).toBeNull();
  const grouped = modelChoice({
    configOptions: [
      {
        id: 'llm',
        name: 'Model',
        category: 'model',
        type: 'select',
        currentValue: 'b',
        options: [
          {
            group: 'g',
            name: 'G',
            options: [
              { value: 'a', name: 'A' },
              { value: 'b', name: 'B', description: 'bee' },
            ],
          },
        ],
      },
    ],
  });
  expect(grouped).toEqual({
    configId: 'llm',
    models: [
      { id: 'a', name: 'A' },
      { id: 'b', name: 'B', description: 'bee', current: true },
    ],
  });
});
