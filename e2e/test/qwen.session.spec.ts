import { describeSessionScenarios } from './session-scenarios';

describe('startSession with the real qwen CLI', () => {
  describeSessionScenarios('qwen', { streamingPath: '/chat/completions', deniedToldAs: /was canceled by the user/, asksForSleep: true });
});
