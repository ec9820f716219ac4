import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { HttpError } from './http-error';

/*
 * Who may call a server that runs agents, written once for the runs API, `serve`, and the Nest guard.
 * A browser is the threat model: any page the user opens can send a form or a `text/plain`/`no-cors`
 * POST to 127.0.0.1 without a CORS preflight, and a DNS-rebinding page reaches 127.0.0.1 under its
 * own host name. So: the Host must be one of this server's names, a present Origin must be this
 * server's own, a POST must be `application/json` (which a page cannot send cross-origin without a
 * preflight), and every API call carries a bearer token (a page cannot read it). The peers do the
 * same: Jupyter checks Host and Origin and prints a tokened URL, the Codex app-server refuses any
 * request carrying `Origin`, sandbox-agent refuses to start without a token.
 */

/** A host's own check of a request: the principal's name, or null (401). */
export type Authenticate = (request: IncomingMessage) => string | null | Promise<string | null>;

/** Who may call: exactly one of `token`, `authenticate` or `noAuth`, and the names the server answers to. */
export interface AccessOptions {
  /** One bearer token (its principal is `default`), or tokens by principal name: `{ alice: 'token-a', bob: 'token-b' }`. */
  token?: string | Readonly<Record<string, string>>;
  /** The host's own check (a Nest guard's, a JWT's, a session cookie's): a principal name or null. */
  authenticate?: Authenticate;
  /** No authentication: every caller is the principal `anonymous`. Only for a server nobody else can reach. */
  noAuth?: boolean;
  /**
   * The host names (without port) a request's `Host` may carry besides the loopback names
   * (`localhost`, 127.0.0.0/8, `::1`, always accepted: a rebinding page cannot use them): the
   * server's public name behind a proxy (`runs.example.com`). `'*'` accepts any.
   */
  allowedHosts?: readonly string[];
}

/** The principal of every call when `noAuth` is set. */
export const ANONYMOUS = 'anonymous';

/** Whether `host` (a name or address, without port) is this machine's loopback. */
export function isLoopbackHost(host: string): boolean {
  const name = host.toLowerCase().replace(/^\[|\]$/g, '');
  if (name === 'localhost' || name === '::1') return true;
  return isIP(name) === 4 && name.startsWith('127.');
}

/** The name part of a `Host` header (`[::1]:8787` → `::1`), lower-cased; null when it is not one. */
function hostName(header: string | undefined): string | null {
  if (!header) return null;
  try {
    return new URL(`http://${header}`).hostname.toLowerCase().replace(/^\[|\]$/g, '');
  } catch {
    return null;
  }
}

/**
 * Refuses (403) a request whose `Host` is not one of this server's names, or whose `Origin` is
 * present and is not this server's own (a page of another site, or a rebound name).
 */
export function checkSameOrigin(request: IncomingMessage, allowedHosts: readonly string[] | undefined): void {
  const host = request.headers.host;
  const name = hostName(host);
  const allowed = (allowedHosts ?? []).map((entry) => entry.toLowerCase());
  if (name === null || !(isLoopbackHost(name) || allowed.includes(name) || allowed.includes('*'))) {
    throw new HttpError(403, `this server does not answer to the host ${JSON.stringify(host ?? '')}`);
  }
  const origin = request.headers.origin;
  if (origin === undefined) return;
  let same = false;
  try {
    const url = new URL(origin);
    same = (url.protocol === 'http:' || url.protocol === 'https:') && url.host === (host ?? '').toLowerCase();
  } catch {
    same = false;
  }
  if (!same) throw new HttpError(403, `requests from another origin are refused: ${JSON.stringify(origin)}`);
}

/** Refuses (415) a request whose body is not declared JSON: a form or `text/plain` POST needs no CORS preflight. */
export function requireJson(request: IncomingMessage): void {
  const type = (request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/json') throw new HttpError(415, 'the body must be sent as application/json');
}

/** A SHA-256 of `text`: tokens are compared in constant time whatever their lengths. */
const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/** A check of `Authorization: Bearer <token>` against `token` (one, or by principal name). */
export function bearerToken(token: string | Readonly<Record<string, string>>): Authenticate {
  const entries = typeof token === 'string' ? [['default', token] as const] : Object.entries(token);
  if (entries.length === 0 || entries.some(([name, value]) => typeof value !== 'string' || value.length < 16 || name === '')) {
    throw new TypeError('every token must be a string of at least 16 characters, with a principal name');
  }
  const known = entries.map(([name, value]) => ({ name, hash: digest(value) }));
  return (request) => {
    const match = /^Bearer +(\S+)\s*$/i.exec(request.headers.authorization ?? '');
    if (!match) return null;
    const given = digest(match[1]);
    let principal: string | null = null;
    // Every token is compared, found or not: the time taken says nothing about which matched.
    for (const { name, hash } of known) if (timingSafeEqual(given, hash) && principal === null) principal = name;
    return principal;
  };
}

/** The request's principal check from `options`; a TypeError when none of token, authenticate or noAuth is given. */
export function authenticatorOf(options: AccessOptions): Authenticate {
  const given = [options.token !== undefined, options.authenticate !== undefined, options.noAuth === true].filter(Boolean).length;
  if (given !== 1)
    throw new TypeError(
      'a server of runs needs exactly one of token, authenticate or noAuth: true (authenticated by default, never by omission)',
    );
  if (options.noAuth) return () => ANONYMOUS;
  if (options.authenticate) return options.authenticate;
  return bearerToken(options.token as string | Readonly<Record<string, string>>);
}

/** The request's principal, or 401 with `WWW-Authenticate: Bearer`. */
export async function principalOf(request: IncomingMessage, authenticate: Authenticate): Promise<string> {
  const principal = await authenticate(request);
  if (typeof principal !== 'string' || principal === '')
    throw new HttpError(401, 'a bearer token is required: Authorization: Bearer <token>', { 'www-authenticate': 'Bearer' });
  return principal;
}

/**
 * The whole check of an API call, as the runs API and `AccessGuard` make it: a `Host` of this
 * server's and no foreign `Origin` (403), a POST sent as `application/json` (415), and a principal
 * (401). Answers the check: it resolves to the request's principal, or throws the `HttpError` to
 * answer. A TypeError at once for options without exactly one of token, authenticate or noAuth.
 */
export function accessCheck(options: AccessOptions): (request: IncomingMessage) => Promise<string> {
  const authenticate = authenticatorOf(options);
  return async (request) => {
    checkSameOrigin(request, options.allowedHosts);
    if (request.method === 'POST') requireJson(request);
    return principalOf(request, authenticate);
  };
}
