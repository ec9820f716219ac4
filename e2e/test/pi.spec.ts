import { describeCliScenarios } from './cli-scenarios';

describe('startRun with the real pi CLI', () => {
  // The scripted models.json prices the model, so pi reports a cost; its usage is per model call.
  describeCliScenarios('pi', {
    packageName: '@mariozechner/pi-coding-agent',
    streamingPath: '/chat/completions',
    failingCommandIsError: true,
    printsThinking: true,
    resumeCarriesUsage: false,
    reportsCost: true,
    model: 'fake-model',
    exitsZeroOnApiError: true,
  });
});
