/**
 * The page `GET /` serves: the caller's conversations and runs (newest first, with status, cost,
 * first prompt line and time), a form to start either (CLI, prompt, model, who answers approvals),
 * and the one opened read from its first event and followed as its events arrive: a conversation
 * continued with a message box, its turn interrupted, or ended; a run cancelled; approvals answered;
 * the workspace's diff shown where there is one. Its files are real assets in `page/` (HTML, CSS,
 * and vanilla JS with no build step); this module fills in what comes from the registry (the CLIs a
 * run can use) and serves them, each at its own path, with the page's security headers: the CSP
 * lets the page load only these files, so no inline script or style runs.
 *
 * Test ids (`data-testid`): the lists `history`, `new`, `refresh`, `sessions`, `runs`,
 * `more-sessions`, `more-runs`, `history-error`, each `history-item` (`data-id`, `data-kind`,
 * `data-state`) with `item-title`, `item-status`, `item-cost`, `item-created`, `item-provider`; the
 * form `start-form`, `prompt`, `kind`, `provider`, `model`, `approvals`, `start`, `form-error`; the
 * one opened `run`, `run-kind`, `run-id`, `status` (`data-state`), `cost`, `cancel` (a
 * conversation's Interrupt), `end`, `connection`, `transcript`, `notice`, `diff-box`,
 * `diff-summary`, `diff`, `message-form`, `message`, `send`, `message-error`; in the transcript
 * `user-message` (`data-turn`), `assistant-text`, `thinking`, `tool-call` (`data-tool-call-id`,
 * `data-state` running/done/error) with `tool-name`, `tool-input`, `tool-output`, `approval`
 * (`data-approval-id`, `data-state` pending/allow/deny/cancelled) with `approval-subject`,
 * `approval-details`, `approval-allow`, `approval-deny`, `approval-decision`, then `error` and
 * `result`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLIS, SESSION_CLI_IDS } from '../clis';
import { PAGE_HEADERS } from '../http/page-headers';

/** One file of the page: the headers it is sent with, and its text. */
export interface PageAsset {
  headers: Readonly<Record<string, string>>;
  body: string;
}

/** The page's files (in `page/` beside this module, in src/ and dist/ alike), by the path each is served at. */
const FILES = [
  { path: '/', file: 'page.html', type: 'text/html' },
  { path: '/page.css', file: 'page.css', type: 'text/css' },
  { path: '/text.js', file: 'text.js', type: 'text/javascript' },
  { path: '/page.js', file: 'page.js', type: 'text/javascript' },
] as const;

/** Where page.html lists the CLIs. */
const CLI_OPTIONS = '<!-- CLI_OPTIONS -->';

let assets: ReadonlyMap<string, PageAsset> | undefined;

/**
 * The page's files by path, read once: page.html with the registry's CLIs as its `<option>`s (ids and
 * names are the registry's own text, no markup).
 */
export function runsPageAssets(): ReadonlyMap<string, PageAsset> {
  assets ??= new Map(
    FILES.map(({ path, file, type }) => {
      let body = readFileSync(join(__dirname, 'page', file), 'utf8');
      if (file === 'page.html') {
        const options = SESSION_CLI_IDS.map((id) => `        <option value="${id}">${CLIS[id].name}</option>`).join('\n');
        if (!body.includes(CLI_OPTIONS)) throw new Error(`page.html has no ${CLI_OPTIONS}`);
        body = body.replace(CLI_OPTIONS, options);
      }
      return [path, { headers: { ...PAGE_HEADERS, 'content-type': `${type}; charset=utf-8` }, body }];
    }),
  );
  return assets;
}
