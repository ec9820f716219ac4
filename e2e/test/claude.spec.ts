import { describeCliScenarios } from './cli-scenarios';

describe('startRun with the real claude CLI', () => {
  describeCliScenarios('claude', {
    packageName: '@anthropic-ai/claude-code',
    streamingPath: '/v1/messages',
    failingCommandIsError: true,
    printsThinking: true,
    resumeCarriesUsage: true,
    reportsCost: true,
    model: 'claude-scripted-model',
  });
});
