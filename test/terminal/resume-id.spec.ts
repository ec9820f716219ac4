import { SESSION_CLI_IDS } from '../../src/clis';
import { cliSessionKey } from '../../src/history/session-key';
import { parseResumeId } from '../../src/terminal/resume-id';

describe('parseResumeId: the session chat --resume continues', () => {
  it("<cli>:<session id>, as history and the ACP agent name a CLI's own session", () => {
    const id = cliSessionKey('claude', '3f2a0b4c-1d2e-4f5a-8b9c-0d1e2f3a4b5c');
    expect(parseResumeId(id, undefined)).toEqual({ provider: 'claude', id: '3f2a0b4c-1d2e-4f5a-8b9c-0d1e2f3a4b5c' });
    expect(parseResumeId('opencode:ses_abc', undefined)).toEqual({ provider: 'opencode', id: 'ses_abc' });
    // Naming the same CLI twice is fine.
    expect(parseResumeId('codex:0199', 'codex')).toEqual({ provider: 'codex', id: '0199' });
  });

  it('a bare session id with --provider (a colon that names no CLI is part of the id)', () => {
    expect(parseResumeId('0199a7c3-thread', 'codex')).toEqual({ provider: 'codex', id: '0199a7c3-thread' });
    expect(parseResumeId('notacli:123', 'qwen')).toEqual({ provider: 'qwen', id: 'notacli:123' });
  });

  it.each([
    ['abc', undefined, `--resume takes <cli>:<session id> (${SESSION_CLI_IDS.join(', ')}), or a bare session id with --provider`],
    ['claude:abc', 'codex', '--resume claude:abc is a session of claude, not of --provider codex'],
    ['  ', 'claude', '--resume needs a session id'],
    // Its registry file says why: Gemini CLI 0.61's session/load loses the saved conversation.
    ['gemini:abc', undefined, 'Gemini CLI sessions cannot be resumed'],
  ] as const)('%j with --provider %s: %s', (text, provider, message) => {
    expect(() => parseResumeId(text, provider)).toThrow(new TypeError(message));
  });
});
