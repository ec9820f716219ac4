import { describeSessionScenarios } from './session-scenarios';

describe('startSession with the real copilot CLI', () => {
  describeSessionScenarios('copilot', {
    streamingPath: '/chat/completions',
    deniedToldAs: /The user rejected this tool call/,
    asksForSleep: true,
    args: ['--no-auto-update', '--disable-client-telemetry'],
  });
});
