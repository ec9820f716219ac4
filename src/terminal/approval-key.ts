import type { ApprovalAnswer } from '../sessions/types';

/** The question under an approval: the keys that answer it. */
export const APPROVAL_QUESTION = 'Allow? y yes · n no · a always';

/** The reason a deny gives the CLI (which tells the model, where it passes it on). */
export const DENIED_IN_CHAT = 'The user denied this tool call.';

/**
 * The answer of one key pressed at an approval's question: `y` allows, `n` denies, `a` allows
 * this kind of call for the rest of the session (where the CLI can: `ApprovalAnswer.remember`).
 * Any other key answers nothing (null): the question stays.
 */
export function approvalAnswerFor(key: string): ApprovalAnswer | null {
  switch (key.toLowerCase()) {
    case 'y':
      return { decision: 'allow' };
    case 'n':
      return { decision: 'deny', reason: DENIED_IN_CHAT };
    case 'a':
      return { decision: 'allow', remember: true };
    default:
      return null;
  }
}

/** The word echoed after the question for an answer. */
export function answerWord(answer: ApprovalAnswer): string {
  if (answer.decision === 'deny') return 'no';
  return answer.remember ? 'always' : 'yes';
}
