import { describeSessionScenarios } from './session-scenarios';

describe('startSession with the real kilo CLI', () => {
  // Its scripted setup asks before bash ("permission": {"bash": "ask"}): Kilo Code (an OpenCode fork)'s default runs it unasked.
  describeSessionScenarios('kilo', {
    streamingPath: '/chat/completions',
    deniedToldAs: /The user rejected permission/,
    asksForSleep: true,
  });
});
