import { describeCliScenarios } from './cli-scenarios';

describe('startRun with the real kilo CLI', () => {
  // Its scripted setup prices the model (Kilo Code reports the cost of each step); its usage is per step.
  describeCliScenarios('kilo', {
    packageName: '@kilocode/cli',
    streamingPath: '/chat/completions',
    failingCommandIsError: true,
    printsThinking: true,
    resumeCarriesUsage: false,
    reportsCost: true,
    model: 'fake/fake-model',
    // Given an unknown flag, `kilo run` prints its usage and exits 1, naming no flag.
    unknownFlagStderr: /^kilo run \[message\.\.\]/,
  });
});
