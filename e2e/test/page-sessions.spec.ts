/*
 * Conversations on the page (`GET /`, src/scale/page/) in Debian's Chromium, over `serve` started as
 * a process (the in-process store, its data kept in a temp `--data-dir`, two principals from
 * `--tokens`), with the real Claude Code behind it against a scripted Anthropic endpoint, in a git
 * repository (each session in a worktree of its own, so it has a diff).
 *
 * One conversation, as a user has it: started from the form, its first answer read; `serve` stopped
 * (SIGTERM, its exit awaited) and started again on the same data directory and port, the page
 * reconnecting by itself, then reloaded: the list still holds the conversation, which reads whole;
 * the second message, whose model call carries the first turn (the CLI resumed its session), asks
 * for a Bash call that is allowed from the page; its diff shown; a third turn interrupted; the
 * conversation ended. The other principal's page lists none of it.
 *
 * `UPDATE_README_SCREENSHOT=1` also writes the screenshot of the conversation with its diff to docs/runs-page.png.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { ScriptedTurn } from '../scripted/script';
import { startScriptedCli, type ScriptedCli } from '../scripted/setup';
import { SLOW_TEXT } from './harness';
import { checkScreenshot, launchChromium, README_SCREENSHOT, until, VIEWPORT, WAIT_MS } from './page-browser';
import { startCommand, type WorkerProcess } from './worker-process';

/** The model's side of the conversation, one entry per model call. */
const SCRIPT: readonly ScriptedTurn[] = [
  { text: 'I will remember PELICAN.' },
  { shell: 'echo PELICAN > word.txt' },
  { text: 'I wrote PELICAN to word.txt.' },
  SLOW_TEXT,
];
const ALICE = 'alice-token-0123456789abcdef';
const BOB = 'bob-token-0123456789abcdefgh';
/** Tokens and cost, as the page words a usage with a price. */
const COST = /^\d+ tokens \(\d+ in, \d+ out\) · \$\d+\.\d{4}$/;

/** `serve` running as a process: its address and how to stop it. */
interface Serving {
  readonly base: string;
  readonly port: number;
  readonly process: WorkerProcess;
}

describe('conversations on the page in Chromium, over the real Claude Code behind serve, restarted between turns', () => {
  let browser: Browser;
  let cli: ScriptedCli;
  let dataDir: string;
  let shots: string;
  let tokens: string;
  let serving: Serving | null = null;
  let sessionId = '';

  beforeAll(async () => {
    browser = await launchChromium();
    cli = await startScriptedCli('claude', SCRIPT);
    // A repository with a commit: each session works in a worktree of its own, and has a diff.
    const git = (...args: string[]) => execFileSync('git', ['-C', cli.cwd, ...args], { stdio: 'ignore' });
    git('init', '-q');
    writeFileSync(join(cli.cwd, 'README.md'), 'A project.\n');
    git('add', '.');
    git('-c', 'user.name=Test', '-c', 'user.email=test@example.com', 'commit', '-qm', 'start');
    dataDir = mkdtempSync(join(tmpdir(), 'page-sessions-data-'));
    shots = mkdtempSync(join(tmpdir(), 'page-sessions-shots-'));
    tokens = mkdtempSync(join(tmpdir(), 'page-sessions-tokens-'));
    writeFileSync(join(tokens, 'tokens'), `${ALICE} alice\n${BOB} bob\n`, { mode: 0o600 });
  });

  afterAll(async () => {
    await stopServe();
    await browser?.close();
    await cli?.close();
    for (const dir of [dataDir, shots, tokens]) if (dir) rmSync(dir, { recursive: true, force: true });
    if (sessionId) rmSync(join(tmpdir(), 'cli-subprocess-core-worktrees', sessionId), { recursive: true, force: true });
  });

  /** Starts `serve` on `port` (0: a free one) over the data directory; resolves once it printed its address. */
  async function startServe(port: number): Promise<Serving> {
    const { started, said } = await startCommand(
      ['serve', '--port', String(port), '--data-dir', dataDir, '--tokens', join(tokens, 'tokens'), '--cwd', cli.cwd],
      // Claude Code found on PATH, its home and endpoint the scripted ones; it retries API errors for minutes by default.
      { env: { ...cli.env, PATH: `${dirname(cli.executable)}:${cli.env.PATH}`, CLAUDE_CODE_MAX_RETRIES: '1' } },
    );
    const base = /serve: (http:\/\/127\.0\.0\.1:(\d+))\//.exec(said);
    if (!base) throw new Error(`serve said: ${said}`);
    serving = { base: base[1], port: Number(base[2]), process: started };
    return serving;
  }

  /** Stops `serve` as an operator does (SIGTERM), and waits for it to exit. */
  async function stopServe(): Promise<void> {
    if (!serving) return;
    const { process: stopped } = serving;
    serving = null;
    stopped.child.kill('SIGTERM');
    await stopped.exited;
  }

  async function newPage(): Promise<{ page: Page; pageErrors: Error[] }> {
    const context = await browser.newContext({ viewport: VIEWPORT });
    const page = await context.newPage();
    // The real CLI takes seconds to start; Playwright's default is 30 s per wait.
    page.setDefaultTimeout(WAIT_MS);
    const pageErrors: Error[] = [];
    page.on('pageerror', (error) => pageErrors.push(error));
    return { page, pageErrors };
  }

  /** Runs `navigate` (a load of the page); answers the ids its list of conversations was answered with. */
  async function listedOn(page: Page, navigate: () => Promise<unknown>): Promise<string[]> {
    const [listed] = await Promise.all([page.waitForResponse((response) => response.url().endsWith('/sessions?limit=20')), navigate()]);
    expect(listed.status()).toBe(200);
    return ((await listed.json()) as { runs: { id: string }[] }).runs.map((session) => session.id);
  }

  /** What the conversation shows, element by element: test id, state and text (a container by its state only). */
  function viewOf(page: Page): Promise<string[]> {
    return page.evaluate(`[...document.querySelectorAll('#transcript [data-testid]')].map((node) =>
      node.dataset.testid + '[' + (node.dataset.state ?? node.dataset.status ?? '') + ']' + (node.querySelector('[data-testid]') ? '' : ': ' + node.textContent))`);
  }

  /** Waits until the conversation's turn `turn` has its result; answers the result's text. */
  async function turnEnded(page: Page, turn: number): Promise<string> {
    const result = page.getByTestId('result').nth(turn - 1);
    await result.waitFor();
    await page.locator('[data-testid="status"][data-state="idle"]').waitFor();
    return (await result.textContent()) ?? '';
  }

  /** The list's item of the conversation (in `state` when given). */
  const itemOf = (page: Page, state?: string) =>
    page.locator(`#sessions [data-testid="history-item"][data-id="${sessionId}"]${state ? `[data-state="${state}"]` : ''}`);

  /** The model calls of the conversation, each as its JSON body: streamed, with tools (Claude's side calls have neither). */
  const modelCalls = () =>
    cli.server.requests
      .filter((request) => {
        const body = request.body as { stream?: unknown; tools?: unknown } | null;
        return request.url.includes('/v1/messages') && body?.stream === true && Array.isArray(body.tools);
      })
      .map((request) => JSON.stringify(request.body));

  it('a conversation started, continued after a restart of serve and a reload, with an approval, a diff, an interrupt and its end', async () => {
    const first = await startServe(0);
    const { page, pageErrors } = await newPage();
    expect(await listedOn(page, () => page.goto(`${first.base}/#token=${ALICE}`))).toEqual([]);

    // Started from the form: a conversation (the default), its prompt the first message.
    expect(await page.getByTestId('kind').inputValue()).toBe('session');
    await page.getByTestId('provider').selectOption('claude');
    await page.getByTestId('prompt').fill('Remember the word PELICAN.');
    await page.getByTestId('start').click();
    await page.waitForURL(/#session=/);
    sessionId = new URLSearchParams(new URL(page.url()).hash.slice(1)).get('session') ?? '';
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(await page.getByTestId('run-kind').textContent()).toBe('Conversation');
    expect(await turnEnded(page, 1)).toBe('Turn 1 completed (end_turn)');
    expect(await page.getByTestId('user-message').allTextContents()).toEqual(['Remember the word PELICAN.']);
    expect(await page.getByTestId('assistant-text').allTextContents()).toEqual(['I will remember PELICAN.']);
    await page.locator('[data-testid="cost"]').filter({ hasText: COST }).waitFor();

    // Listed: its first message, idle between turns, its cost.
    await itemOf(page, 'idle').waitFor();
    expect(await itemOf(page).getByTestId('item-title').textContent()).toBe('Remember the word PELICAN.');
    expect(await itemOf(page).getByTestId('item-cost').textContent()).toMatch(COST);
    expect(await itemOf(page).getByTestId('item-provider').textContent()).toBe('claude · 1 turn(s)');
    const conversation = await viewOf(page);

    // serve stopped: the page says it is reconnecting; started again on the same data directory and port, it goes on by itself.
    await stopServe();
    await page.locator('[data-testid="connection"]:not([hidden])').waitFor();
    const second = await startServe(first.port);
    expect(second.base).toBe(first.base);
    await page.locator('[data-testid="connection"][hidden]').waitFor({ state: 'attached' });

    // Reloaded: the same conversation from the restarted server, whole, and in the list.
    expect(await listedOn(page, () => page.reload())).toEqual([sessionId]);
    expect(page.url()).toBe(`${second.base}/#session=${sessionId}`);
    await turnEnded(page, 1);
    expect(await viewOf(page)).toEqual(conversation);
    await itemOf(page, 'idle').waitFor();
    expect(await page.getByTestId('history-item').count()).toBe(1);

    // The second message: a Bash call, allowed from the page; the model call carries the first turn.
    const callsBefore = modelCalls().length;
    await page.getByTestId('message').fill('Write the word into word.txt.');
    await page.getByTestId('send').click();
    await page.getByTestId('approval-allow').click();
    expect(await turnEnded(page, 2)).toBe('Turn 2 completed (end_turn)');
    const resumed = modelCalls()[callsBefore];
    expect(resumed).toContain('Remember the word PELICAN.');
    expect(resumed).toContain('I will remember PELICAN.');
    expect(resumed).toContain('Write the word into word.txt.');
    expect(await page.getByTestId('user-message').allTextContents()).toEqual([
      'Remember the word PELICAN.',
      'Write the word into word.txt.',
    ]);
    expect(await page.getByTestId('approval').getAttribute('data-state')).toBe('allow');
    expect(await page.getByTestId('tool-input').textContent()).toBe('$ echo PELICAN > word.txt');
    expect((await page.getByTestId('assistant-text').allTextContents()).at(-1)).toBe('I wrote PELICAN to word.txt.');
    expect(await page.getByTestId('message').inputValue()).toBe('');

    // What the conversation changed in its worktree: the diff.
    await page.getByTestId('diff-box').waitFor();
    expect(await page.getByTestId('diff-summary').textContent()).toBe('Changes: 1 file changed, +1 −0');
    await page.getByTestId('diff-summary').click();
    const diff = (await page.getByTestId('diff').textContent()) ?? '';
    expect(diff).toContain('+++ b/word.txt');
    expect(diff).toContain('+PELICAN');
    // Listed as the second turn's end left it: idle, two turns, both turns' cost.
    await itemOf(page, 'idle').getByTestId('item-provider').filter({ hasText: '2 turn(s)' }).waitFor();
    expect(await itemOf(page).getByTestId('item-cost').textContent()).toMatch(COST);
    const shot = await checkScreenshot(page, shots, 'conversation');
    if (process.env.UPDATE_README_SCREENSHOT === '1') copyFileSync(shot.path, README_SCREENSHOT);

    // A third turn, interrupted while it streams: it ends aborted, and the conversation goes on.
    await page.getByTestId('message').fill('Tell me a long story.');
    await page.getByTestId('send').click();
    await until('the third answer streaming', async () => ((await page.getByTestId('assistant-text').allTextContents())[2] ?? '') !== '');
    await page.getByTestId('cancel').click();
    expect(await turnEnded(page, 3)).toMatch(/^Turn 3 aborted/);
    expect(SLOW_TEXT.slowText.startsWith((await page.getByTestId('assistant-text').allTextContents())[2])).toBe(true);

    // Ended: closed, nothing more can be sent; so the list says too.
    await page.getByTestId('end').click();
    await page.locator('[data-testid="status"][data-state="closed"]').waitFor();
    expect(await page.getByTestId('send').isDisabled()).toBe(true);
    expect(await page.getByTestId('end').isDisabled()).toBe(true);
    await itemOf(page, 'closed').waitFor();
    expect(pageErrors).toEqual([]);

    // The other principal's page lists none of it, and cannot open it.
    const other = await newPage();
    expect(await listedOn(other.page, () => other.page.goto(`${second.base}/#token=${BOB}`))).toEqual([]);
    expect(await other.page.getByTestId('history-item').count()).toBe(0);
    await other.page.goto(`${second.base}/#session=${sessionId}`);
    await other.page.getByTestId('notice').waitFor();
    expect(await other.page.getByTestId('notice').textContent()).toBe(
      'No events: this server does not know the conversation (or it expired).',
    );
    expect(await other.page.getByTestId('user-message').count()).toBe(0);
    expect(other.pageErrors).toEqual([]);
  });
});
