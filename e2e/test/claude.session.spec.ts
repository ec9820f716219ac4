import { describeSessionScenarios } from './session-scenarios';

describe('startSession with the real claude CLI', () => {
  describeSessionScenarios('claude', {
    streamingPath: '/v1/messages',
    deniedToldAs: /The host denied this tool call\./,
    asksForSleep: false,
  });
});
