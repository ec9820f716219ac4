import { describeCliScenarios } from './cli-scenarios';

describe('startRun with the real codex CLI', () => {
  describeCliScenarios('codex', {
    packageName: '@openai/codex',
    streamingPath: '/responses',
    failingCommandIsError: true,
    printsThinking: true,
    resumeCarriesUsage: true,
    reportsCost: false,
    model: 'gpt-5.5',
  });
});
