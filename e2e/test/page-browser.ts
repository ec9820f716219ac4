/*
 * What the page's browser specs share (runs-page.spec.ts, page-sessions.spec.ts): Debian's
 * Chromium driven by playwright-core, its viewport, a polling wait for a loaded machine, and the
 * screenshot check (a PNG decoded and looked at, never compared byte for byte).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { distinctColors, readPng, type Png } from './png';

export const CHROMIUM = '/usr/bin/chromium';
// Without the background-networking flags Chromium's attempts to reach the (closed) network pile up.
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
export const VIEWPORT = { width: 1000, height: 760 };
/** A screenshot of a page with text on it has far more colours than this (anti-aliasing); a blank one has 1. */
export const MIN_COLORS = 32;
/** Where the README's screenshot of the page is (written by page-sessions.spec.ts with `UPDATE_README_SCREENSHOT=1`). */
export const README_SCREENSHOT = join(__dirname, '..', '..', 'docs', 'runs-page.png');
/** How long a wait of these specs' own (`until`, Playwright's waits) lasts before it fails: the machine may be loaded. */
export const WAIT_MS = 60_000;

/** Starts Debian's Chromium, headless; fails saying how to install it when it is missing. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`this test drives Debian's Chromium at ${CHROMIUM}: apt-get install -y chromium`);
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

/** Waits (polling) until `check` holds; fails after WAIT_MS saying what it waited for. */
export async function until(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`waited ${WAIT_MS} ms in vain until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * A screenshot of `page` written to `<dir>/<name>.png`, checked as an image: a PNG that decodes
 * (signature, chunk CRCs, zlib, filters) to the viewport's size, with more than MIN_COLORS colours
 * (a blank or single-colour page fails).
 */
export async function checkScreenshot(page: Page, dir: string, name: string): Promise<{ path: string; png: Png }> {
  const path = join(dir, `${name}.png`);
  await page.screenshot({ path });
  const png = readPng(readFileSync(path));
  expect([png.width, png.height]).toEqual([VIEWPORT.width, VIEWPORT.height]);
  expect(distinctColors(png)).toBeGreaterThan(MIN_COLORS);
  return { path, png };
}
