import { appServerProfile } from '../../src/protocols/codex-app-server-events';

/*
 * Codex's app-server names a turn's error itself (`codexErrorInfo`): `unauthorized` (no key, no
 * login) is the neutral `auth` code, which the ACP agent answers with ACP's auth-required error.
 */

const failure = (codexErrorInfo: string) => ({ message: 'stream disconnected before completion', codexErrorInfo, additionalDetails: null });

it("codexErrorInfo 'unauthorized' is an auth error, in the error notification and in the failed turn/completed", () => {
  const state = appServerProfile.newState();
  const notice = appServerProfile.decode(
    { method: 'error', params: { error: failure('unauthorized'), willRetry: false, threadId: 't', turnId: 'u' } },
    state,
  );
  expect(notice).toMatchObject([{ kind: 'error', payload: { code: 'auth', severity: 'error', metadata: { http_status: 401 } } }]);
  const fresh = appServerProfile.newState();
  const completed = appServerProfile.decode(
    { method: 'turn/completed', params: { threadId: 't', turn: { id: 'u', status: 'failed', items: [], error: failure('unauthorized') } } },
    fresh,
  );
  expect(completed.filter((draft) => draft.kind === 'error')).toMatchObject([{ payload: { code: 'auth' } }]);
});

it('any other codexErrorInfo keeps what the message says', () => {
  const notice = appServerProfile.decode(
    { method: 'error', params: { error: failure('other'), willRetry: false, threadId: 't', turnId: 'u' } },
    appServerProfile.newState(),
  );
  expect(notice).toMatchObject([{ kind: 'error', payload: { code: 'api_error' } }]);
});
