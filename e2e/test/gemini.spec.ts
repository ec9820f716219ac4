import { describeCliScenarios } from './cli-scenarios';

describe('startRun with the real gemini CLI', () => {
  describeCliScenarios('gemini', {
    packageName: '@google/gemini-cli',
    streamingPath: 'streamGenerateContent',
    failingCommandIsError: false,
    printsThinking: false,
    resumeCarriesUsage: false,
    reportsCost: false,
    model: 'gemini-2.5-pro',
  });
});
