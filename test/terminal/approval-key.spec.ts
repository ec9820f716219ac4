import { answerWord, approvalAnswerFor, DENIED_IN_CHAT } from '../../src/terminal/approval-key';

describe('approvalAnswerFor: the key pressed at an approval', () => {
  it.each([
    ['y', { decision: 'allow' }, 'yes'],
    ['Y', { decision: 'allow' }, 'yes'],
    ['n', { decision: 'deny', reason: DENIED_IN_CHAT }, 'no'],
    ['N', { decision: 'deny', reason: DENIED_IN_CHAT }, 'no'],
    ['a', { decision: 'allow', remember: true }, 'always'],
  ])('%s → %j, echoed as %s', (key, answer, word) => {
    expect(approvalAnswerFor(key)).toEqual(answer);
    expect(answerWord(approvalAnswerFor(key)!)).toBe(word);
  });

  it.each(['', '\r', ' ', 'x', 'yes', 'q', '\u0003'])('%j answers nothing: the question stays', (key) => {
    expect(approvalAnswerFor(key)).toBeNull();
  });
});
