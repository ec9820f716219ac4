import { describeSessionScenarios } from './session-scenarios';

describe('startSession with the real pi CLI', () => {
  // pi asks nothing itself: the approval extension the session loads asks before bash, write and edit.
  // Its default provider is Google: the scripted model is named (it resolves to the scripted provider).
  describeSessionScenarios('pi', {
    streamingPath: '/chat/completions',
    deniedToldAs: /The host denied this tool call/,
    asksForSleep: true,
    args: ['--model', 'fake-model'],
  });
});
