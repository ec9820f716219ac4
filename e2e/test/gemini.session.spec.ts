import { describeSessionScenarios } from './session-scenarios';

describe('startSession with the real gemini CLI', () => {
  describeSessionScenarios('gemini', { streamingPath: 'streamGenerateContent', deniedToldAs: /canceled by the user/, asksForSleep: true });
});
