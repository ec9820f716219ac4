import { classifyApiError, ERROR_CODES, parseErrorBody, readApiError } from '../../src/providers/error-codes';

/* The error convention (#18 "One HTTP 400 gives code invalid_request_error (Claude), null (Codex) and unknown (Gemini)"). */

describe('readApiError', () => {
  it('gives one HTTP 400 one code, whichever CLI passed it on', () => {
    const claude = readApiError('API Error: 400 scripted invalid request', { status: 400, type: 'invalid_request_error' });
    const codex = readApiError(
      '{"error":{"message":"Invalid request: scripted bad request.","type":"invalid_request_error","param":null,"code":null}}',
    );
    const gemini = readApiError('[API Error: {"error":{"code":400,"message":"scripted invalid request","status":"INVALID_ARGUMENT"}}]');
    expect([claude.code, codex.code, gemini.code]).toEqual(['invalid_request', 'invalid_request', 'invalid_request']);
    expect(codex).toEqual({
      message: 'Invalid request: scripted bad request.',
      code: 'invalid_request',
      metadata: { native_code: 'invalid_request_error' },
    });
    expect(gemini).toEqual({
      message: 'scripted invalid request',
      code: 'invalid_request',
      metadata: { native_code: 'INVALID_ARGUMENT', http_status: 400 },
    });
  });

  it('keeps a text without a body as the message, with a status it names', () => {
    expect(readApiError('unexpected status 429 Too Many Requests')).toEqual({
      message: 'unexpected status 429 Too Many Requests',
      code: 'rate_limit',
      metadata: { http_status: 429 },
    });
    expect(readApiError('something broke')).toEqual({ message: 'something broke', code: 'api_error', metadata: {} });
  });

  it('reads a status written before the body (Claude: API Error: 529 {…})', () => {
    expect(parseErrorBody('API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}')).toEqual({
      message: 'Overloaded',
      status: 529,
      type: 'overloaded_error',
    });
  });

  it('is null for text that holds no error body', () => {
    expect(parseErrorBody('no braces')).toBeNull();
    expect(parseErrorBody('{not json}')).toBeNull();
    expect(parseErrorBody('{"error":{"code":5}}')).toBeNull();
  });
});

describe('classifyApiError', () => {
  it.each([
    [{ type: 'authentication_error' }, 'auth'],
    [{ type: 'authentication_failed' }, 'auth'],
    [{ type: 'UNAUTHENTICATED' }, 'auth'],
    [{ type: 'rate_limit_error' }, 'rate_limit'],
    [{ type: 'RESOURCE_EXHAUSTED' }, 'rate_limit'],
    [{ type: 'insufficient_quota', status: 429 }, 'billing'],
    [{ type: 'overloaded_error' }, 'overloaded'],
    [{ type: 'model_not_found' }, 'not_found'],
    [{ type: 'context_length_exceeded' }, 'context_length'],
    [{ type: 'unknown', status: 401 }, 'auth'],
    [{ status: 403 }, 'permission'],
    [{ status: 404 }, 'not_found'],
    [{ status: 422 }, 'invalid_request'],
    [{ status: 500 }, 'server'],
    [{ status: 503 }, 'overloaded'],
    [{ status: 529 }, 'overloaded'],
    [{}, 'api_error'],
  ] as const)('%j is %s', (fields, code) => {
    expect(classifyApiError(fields)).toBe(code);
    expect(ERROR_CODES).toContain(code);
  });
});
