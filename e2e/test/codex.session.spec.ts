import { describeSessionScenarios } from './session-scenarios';

describe('startSession with the real codex CLI', () => {
  describeSessionScenarios('codex', { streamingPath: '/responses', deniedToldAs: /rejected by user/, asksForSleep: true });
});
