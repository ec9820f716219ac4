import { describeSessionScenarios } from './session-scenarios';

describe('startSession with the real opencode CLI', () => {
  // Its scripted setup asks before bash ("permission": {"bash": "ask"}): OpenCode's default runs it unasked.
  describeSessionScenarios('opencode', {
    streamingPath: '/chat/completions',
    deniedToldAs: /The user rejected permission/,
    asksForSleep: true,
  });
});
