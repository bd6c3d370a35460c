/**
 * The playground built, served on 127.0.0.1 and opened in headless Chromium, for the browser
 * suites of properties/playground/: one page per suite, its errors collected, everything
 * removed again by `close`.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { buildPlayground } from '../../src/playground/build.js';
import { serveStatic, type StaticServer } from '../../src/playground/server.js';
import { launchChromium, type Chromium } from './chromium.js';

/** Where the suites save their screenshots (git-ignored test artifacts). */
export const SHOTS = new URL('../../reports/playground/', import.meta.url);

/** A served playground and the page that shows it. */
export interface PlaygroundPage {
  url: string;
  page: Page;
  browser: Chromium;
  /** Uncaught errors of the page, in order. */
  errors: string[];
  /** A fresh page load, wired and showing its first world. */
  open(): Promise<void>;
  close(): Promise<void>;
}

/** Builds the playground into a temporary folder, serves it and opens it at `viewport`. */
export async function openPlayground(viewport: {
  width: number;
  height: number;
}): Promise<PlaygroundPage> {
  const site = mkdtempSync(join(tmpdir(), 'mcpr-playground-test-'));
  mkdirSync(SHOTS, { recursive: true });
  let server: StaticServer | undefined;
  let browser: Chromium | undefined;
  try {
    await buildPlayground(site);
    server = await serveStatic(site);
    browser = await launchChromium();
    const page = await browser.context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.setViewportSize(viewport);
    const s = server;
    const b = browser;
    return {
      url: s.url,
      page,
      browser: b,
      errors,
      async open() {
        await page.goto(s.url);
        await page.waitForSelector('body[data-ready="yes"]');
      },
      async close() {
        await b.close();
        await s.close();
        rmSync(site, { recursive: true, force: true });
      },
    };
  } catch (e) {
    await browser?.close();
    await server?.close();
    rmSync(site, { recursive: true, force: true });
    throw e;
  }
}
