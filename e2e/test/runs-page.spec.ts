/*
 * The runs page (`GET /`, src/scale/page.ts) in a real browser: Debian's Chromium driven by
 * playwright-core, over the runs API served in this process (no Redis) with the real Claude Code
 * behind it, against a scripted Anthropic endpoint. A run is started from the form, its approval
 * answered with the page's buttons, and the page reloaded mid-run and after the run: the view is
 * rebuilt from the replayed events. Screenshots are checked as images (see `checkScreenshot`).
 *
 * `UPDATE_README_SCREENSHOT=1` also writes the final screenshot to docs/runs-page.png.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { createRunsHandler, createWorker, openRunStore } from '../../src';
import type { ScriptedTurn } from '../scripted/script';
import { startScriptedCli, type ScriptedCli } from '../scripted/setup';
import { SLOW_TEXT } from './harness';
import { differingPixels, distinctColors, pixelAt, readPng, type Png } from './png';

const CHROMIUM = '/usr/bin/chromium';
// Without the background-networking flags Chromium's attempts to reach the (closed) network pile up.
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const VIEWPORT = { width: 1000, height: 760 };
/** A screenshot of a page with text on it has far more colours than this (anti-aliasing); a blank one has 1. */
const MIN_COLORS = 32;
const README_SCREENSHOT = join(__dirname, '..', '..', 'docs', 'runs-page.png');

/** Records every EventSource the page opens, to check that the stream's `end` closed them. */
const RECORD_EVENT_SOURCES = `
  window.openedEventSources = [];
  window.EventSource = class extends window.EventSource {
    constructor(...args) { super(...args); window.openedEventSources.push(this); }
  };`;

/** The runs API with its page, served on 127.0.0.1 by this process, and the scripted Claude Code its runs use. */
interface Served {
  readonly base: string;
  readonly cli: ScriptedCli;
  /** Every request the server took, as `METHOD /path`. */
  readonly requests: string[];
  close(): Promise<void>;
}

async function serveRuns(script: readonly ScriptedTurn[]): Promise<Served> {
  const cli = await startScriptedCli('claude', script);
  const store = openRunStore();
  const worker = createWorker(store, { concurrency: 1 });
  // Claude retries API errors for minutes by default.
  const handle = createRunsHandler(store, { jobDefaults: { cwd: cli.cwd, executable: cli.executable, env: { ...cli.env, CLAUDE_CODE_MAX_RETRIES: '1' } } });
  const requests: string[] = [];
  const server = createServer((request, response) => {
    requests.push(`${request.method} ${request.url}`);
    handle(request, response).then(
      (handled) => {
        if (handled) return;
        response.writeHead(404);
        response.end();
      },
      (error: Error) => response.destroy(error),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    cli,
    requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await worker.close();
      await store.close();
      await cli.close();
    },
  };
}

/** The page of a served API, in its own browser context, with its script errors and every URL it asked for. */
interface Opened {
  readonly served: Served;
  readonly page: Page;
  readonly pageErrors: Error[];
  readonly requested: string[];
}

describe('the runs page in Chromium, over the real claude CLI', () => {
  let browser: Browser;
  let shots: string;
  const open: { served: Served; context: BrowserContext }[] = [];

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`this test drives Debian's Chromium at ${CHROMIUM}: apt-get install -y chromium`);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    shots = mkdtempSync(join(tmpdir(), 'runs-page-shots-'));
  });

  afterEach(async () => {
    for (const { served, context } of open.splice(0)) {
      await context.close();
      await served.close();
    }
  });

  afterAll(async () => {
    await browser?.close();
    if (shots) rmSync(shots, { recursive: true, force: true });
  });

  async function openPage(script: readonly ScriptedTurn[]): Promise<Opened> {
    const served = await serveRuns(script);
    const context = await browser.newContext({ viewport: VIEWPORT });
    open.push({ served, context });
    await context.addInitScript({ content: RECORD_EVENT_SOURCES });
    const page = await context.newPage();
    // The real CLI takes seconds to start; Playwright's default is 30 s per wait.
    page.setDefaultTimeout(60_000);
    const pageErrors: Error[] = [];
    const requested: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error));
    page.on('request', (request) => requested.push(request.url()));
    await page.goto(`${served.base}/`);
    return { served, page, pageErrors, requested };
  }

  /** Starts a run from the form (claude, who answers approvals left at its default); answers the run id in the URL. */
  async function startRun(page: Page, prompt: string): Promise<string> {
    expect(await page.getByTestId('approvals').inputValue()).toBe('ask');
    await page.getByTestId('provider').selectOption('claude');
    await page.getByTestId('prompt').fill(prompt);
    await page.getByTestId('start').click();
    await page.waitForURL(/#run=/);
    const runId = new URLSearchParams(new URL(page.url()).hash.slice(1)).get('run') ?? '';
    expect(runId).toMatch(/^[0-9a-f-]{36}$/);
    expect(await page.getByTestId('run-id').textContent()).toBe(runId);
    return runId;
  }

  /** Waits until the status badge says `state`. */
  async function untilStatus(page: Page, state: string): Promise<void> {
    await page.locator(`[data-testid="status"][data-state="${state}"]`).waitFor();
  }

  /** What the page shows, element by element: test id, state and text (a container by its state only). */
  function viewOf(page: Page): Promise<string[]> {
    return page.evaluate(`[...document.querySelectorAll('#run [data-testid]')].map((node) =>
      node.dataset.testid + '[' + (node.dataset.state ?? '') + ']' + (node.querySelector('[data-testid]') ? '' : ': ' + node.textContent))`);
  }

  /** A computed style property of the (first) element with test id `testId`, as the browser has it. */
  function styleOf(page: Page, testId: string, property: string): Promise<string> {
    return page.evaluate(`getComputedStyle(document.querySelector('[data-testid="${testId}"]'))[${JSON.stringify(property)}]`);
  }

  /** The assistant's text as shown: every text block, joined. */
  async function assistantText(page: Page): Promise<string> {
    return (await page.getByTestId('assistant-text').allTextContents()).join('');
  }

  /**
   * A screenshot, checked as an image: a PNG that decodes (signature, chunk CRCs, zlib, filters) to
   * the viewport's size, with more than MIN_COLORS colours (a blank or single-colour page fails).
   */
  async function checkScreenshot(page: Page, name: string): Promise<{ path: string; png: Png }> {
    const path = join(shots, `${name}.png`);
    await page.screenshot({ path });
    const png = readPng(readFileSync(path));
    expect([png.width, png.height]).toEqual([VIEWPORT.width, VIEWPORT.height]);
    expect(distinctColors(png)).toBeGreaterThan(MIN_COLORS);
    return { path, png };
  }

  /**
   * Waits until the page's EventSource is closed (by the stream's `end`: an open one would reconnect
   * for more, again and again); answers how many it opened (one per load: the stream was never cut).
   */
  async function streamClosed(page: Page): Promise<number> {
    await page.waitForFunction('window.openedEventSources.length > 0 && window.openedEventSources.every((source) => source.readyState === EventSource.CLOSED)');
    return page.evaluate('window.openedEventSources.length');
  }

  it('the screenshot check fails on a blank page', async () => {
    const context = await browser.newContext({ viewport: VIEWPORT });
    try {
      const page = await context.newPage();
      await page.setContent('<!doctype html><title>blank</title>');
      const png = readPng(await page.screenshot());
      expect([png.width, png.height]).toEqual([VIEWPORT.width, VIEWPORT.height]);
      expect(distinctColors(png)).toBeLessThanOrEqual(MIN_COLORS);
    } finally {
      await context.close();
    }
  });

  it('a run allowed: the approval answered from the page, streamed text once, result and cost; reloads rebuild the view', async () => {
    const answer = 'I created made-by-tool.txt, as you asked; it is empty.';
    const { served, page, pageErrors, requested } = await openPage([{ shell: 'touch made-by-tool.txt' }, { slowText: answer, delayMs: 40 }]);
    const runId = await startRun(page, 'Create made-by-tool.txt.');

    // The run waits for the answer: the tool call and its approval, with both buttons.
    const allow = page.getByTestId('approval-allow');
    await allow.waitFor();
    expect(await page.getByTestId('tool-name').textContent()).toBe('Bash');
    expect(await page.getByTestId('tool-input').textContent()).toBe('$ touch made-by-tool.txt');
    expect(await page.getByTestId('approval-subject').textContent()).toBe('Approve Bash?');
    expect(await page.getByTestId('approval-details').textContent()).toContain('$ touch made-by-tool.txt');
    await untilStatus(page, 'running');
    const asking = await checkScreenshot(page, '1-approval');
    // The screenshot shows the Allow button where the page lays it out, in its colour (the left padding, clear of the label).
    const box = await allow.boundingBox();
    const green = pixelAt(asking.png, (box?.x ?? 0) + 4, (box?.y ?? 0) + (box?.height ?? 0) / 2);
    expect(await styleOf(page, 'approval-allow', 'backgroundColor')).toBe(`rgb(${green.join(', ')})`);

    // Reloaded mid-run (the run still waits): the same run, rebuilt, the approval still open.
    const asked = await viewOf(page);
    await page.reload();
    await allow.waitFor();
    expect(await page.getByTestId('run-id').textContent()).toBe(runId);
    expect(await viewOf(page)).toEqual(asked);
    expect(await page.getByTestId('tool-call').count()).toBe(1);

    // Allowed from the reloaded page: the run goes on to the end.
    await allow.click();
    await untilStatus(page, 'completed');
    expect(await page.getByTestId('approval').getAttribute('data-state')).toBe('allow');
    expect(await page.getByTestId('approval-decision').textContent()).toBe('Allowed');
    expect(await allow.isDisabled()).toBe(true);
    expect(await page.getByTestId('approval-deny').isDisabled()).toBe(true);
    expect(await page.getByTestId('tool-call').getAttribute('data-state')).toBe('done');
    expect(await page.getByTestId('tool-output').textContent()).toBe('(Bash completed with no output)');
    // Streamed in pieces, then the whole message: shown once.
    expect(await assistantText(page)).toBe(answer);
    expect(await page.getByTestId('result').textContent()).toBe('Run completed (end_turn)');
    expect(await page.getByTestId('cost').textContent()).toMatch(/^\d+ tokens \(\d+ in, \d+ out\) · \$\d+\.\d{4}$/);
    expect(await page.getByTestId('cancel').isDisabled()).toBe(true);
    expect(existsSync(join(served.cli.cwd, 'made-by-tool.txt'))).toBe(true);
    expect(await streamClosed(page)).toBe(1);
    const done = await checkScreenshot(page, '2-completed');
    expect(differingPixels(asking.png, done.png)).toBeGreaterThan(1000);

    // Reloaded after the run: the same view, rebuilt from the replayed events.
    const finished = await viewOf(page);
    await page.reload();
    await untilStatus(page, 'completed');
    expect(await viewOf(page)).toEqual(finished);
    expect(await streamClosed(page)).toBe(1);
    await checkScreenshot(page, '3-reloaded');
    if (process.env.UPDATE_README_SCREENSHOT === '1') {
      mkdirSync(join(README_SCREENSHOT, '..'), { recursive: true });
      copyFileSync(done.path, README_SCREENSHOT);
    }

    expect(pageErrors).toEqual([]);
    // Self-contained: the page asked nothing of any other origin.
    expect(requested.filter((url) => !url.startsWith(`${served.base}/`))).toEqual([]);
    // What it asked of the API: one run, one answer, and one stream per load (never cut, so never resumed).
    const approvalId = await page.getByTestId('approval').getAttribute('data-approval-id');
    const events = `GET /runs/${runId}/events`;
    expect(served.requests.filter((request) => !request.startsWith('GET /favicon'))).toEqual(['GET /', 'POST /runs', events, 'GET /', events, `POST /runs/${runId}/approvals/${approvalId}`, 'GET /', events]);
  });

  it('Cancel stops a running run: it ends aborted', async () => {
    const { page, pageErrors } = await openPage([SLOW_TEXT]);
    await startRun(page, 'Answer slowly.');
    await page.getByTestId('assistant-text').waitFor();
    await page.getByTestId('cancel').click();
    await untilStatus(page, 'aborted');
    expect(await page.getByTestId('result').getAttribute('data-status')).toBe('aborted');
    // Cut short: what streamed before the cancel, no more.
    expect(SLOW_TEXT.slowText.startsWith(await assistantText(page))).toBe(true);
    expect(await assistantText(page)).not.toBe(SLOW_TEXT.slowText);
    expect(await streamClosed(page)).toBe(1);
    expect(pageErrors).toEqual([]);
  });

  it('a run the server does not know: a notice, and the stream is closed', async () => {
    const { served, page, pageErrors } = await openPage([]);
    await page.goto(`${served.base}/#run=00000000-0000-0000-0000-000000000000`);
    await page.getByTestId('notice').waitFor();
    expect(await page.getByTestId('status').getAttribute('data-state')).toBe('ended');
    expect(await page.getByTestId('cancel').isDisabled()).toBe(true);
    expect(await streamClosed(page)).toBe(1);
    expect(pageErrors).toEqual([]);
  });

  it('a run denied from the page: no file, the model is told, thinking shown dimmed once', async () => {
    const answer = 'I was not allowed to create <b>the file</b>.';
    const { served, page, pageErrors } = await openPage([{ shell: 'touch made-by-tool.txt' }, { thinking: 'The host said no.', text: answer }]);
    await startRun(page, 'Create made-by-tool.txt.');
    await page.getByTestId('approval-deny').click();
    await untilStatus(page, 'completed');
    expect(await page.getByTestId('approval').getAttribute('data-state')).toBe('deny');
    expect(await page.getByTestId('approval-decision').textContent()).toBe('Denied');
    expect(await page.getByTestId('tool-call').getAttribute('data-state')).toBe('error');
    expect(existsSync(join(served.cli.cwd, 'made-by-tool.txt'))).toBe(false);
    expect(JSON.stringify(served.cli.server.requests.map((request) => request.body))).toContain('The host denied this tool call.');
    // Thinking and text each streamed, then sent whole: each shown once.
    expect(await page.getByTestId('thinking').allTextContents()).toEqual(['The host said no.']);
    // Shown as text: the model's markup is not markup on the page.
    expect(await assistantText(page)).toBe(answer);
    expect(await page.locator('#transcript b').count()).toBe(0);
    expect(await styleOf(page, 'thinking', 'color')).not.toBe(await styleOf(page, 'assistant-text', 'color'));
    await checkScreenshot(page, 'denied');
    expect(await streamClosed(page)).toBe(1);
    expect(pageErrors).toEqual([]);
  });
});
