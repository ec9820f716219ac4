/**
 * The headers of a page served beside the runs API: it may not be framed by another site
 * (`frame-ancestors 'none'`: a framed page can be clicked through), loads nothing from elsewhere,
 * runs only its own files' scripts and styles (none inline), is not sniffed into another type, and
 * sends no referrer (its URL may hold a run id).
 */
export const PAGE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
});
