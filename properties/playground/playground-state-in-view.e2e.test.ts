/**
 * The playground keeps the client machine's current state in view (issue 39, T5): at 1440×900,
 * after every step that moves it, the highlighted state of the diagram lies inside the window
 * and inside the diagram's own scrolling box, without the page scrolling itself. The review
 * found the stall's last state (`resumptionFailed`) below the fold, and `trusts-any-200`'s
 * `resumed` outside the box. Screenshots go to reports/playground/ (git-ignored).
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { skipBrowserSuites } from '../support/chromium.js';
import { openPlayground, SHOTS, type PlaygroundPage } from '../support/playground-page.js';

const WIDTH = 1440;
const HEIGHT = 900;

describe.skipIf(skipBrowserSuites())('the current state stays in view at 1440×900', () => {
  let pg: PlaygroundPage;
  let page: Page;

  beforeAll(async () => {
    pg = await openPlayground({ width: WIDTH, height: HEIGHT });
    page = pg.page;
  });
  afterAll(async () => {
    await pg?.close();
  });

  /** Waits until the diagram highlights the state the step bar shows, and returns its name. */
  async function drawn(): Promise<string> {
    await page.waitForFunction(`(() => {
      const state = document.getElementById('state')?.textContent?.trim() ?? '';
      const g = document.querySelector('#diagram svg g.current');
      return state !== '' && g !== null && (g.id ?? '').includes('-' + state + '-');
    })()`);
    return (await page.locator('#state').innerText()).trim();
  }

  /** The highlighted state's box lies inside the window and inside the diagram's box. */
  async function expectInView(step: string): Promise<void> {
    const state = await drawn();
    const g = (await page.locator('#diagram svg g.current').boundingBox())!;
    const box = (await page.locator('#diagram').boundingBox())!;
    const where = `${step}: ${state} at x=${Math.round(g.x)} y=${Math.round(g.y)} (${Math.round(g.width)}×${Math.round(g.height)}), diagram box y=${Math.round(box.y)}..${Math.round(box.y + box.height)}`;
    expect(g.x, where).toBeGreaterThanOrEqual(0);
    expect(g.y, where).toBeGreaterThanOrEqual(0);
    expect(g.x + g.width, where).toBeLessThanOrEqual(WIDTH);
    expect(g.y + g.height, where).toBeLessThanOrEqual(HEIGHT);
    expect(g.x, where).toBeGreaterThanOrEqual(box.x - 0.5);
    expect(g.y, where).toBeGreaterThanOrEqual(box.y - 0.5);
    expect(g.x + g.width, where).toBeLessThanOrEqual(box.x + box.width + 0.5);
    expect(g.y + g.height, where).toBeLessThanOrEqual(box.y + box.height + 0.5);
    expect(await page.evaluate('window.scrollY'), where).toBe(0);
  }

  async function load(what: string): Promise<void> {
    await page.fill('#load-text', what);
    await page.click('#load');
    expect((await page.locator('#load-error').innerText()).trim()).toBe('');
  }

  test('the stall: to the end, back to the start, then transition by transition', async () => {
    await pg.open();
    await load('seven-minute-stall');
    await page.click('#last');
    await expectInView('stall, last step');
    expect(await drawn()).toBe('resumptionFailed');
    await page.screenshot({ path: new URL('state-in-view-stall-end.png', SHOTS).pathname });
    await page.click('#first');
    await expectInView('stall, first step');
    const seen = new Set<string>();
    for (let i = 0; i < 4; i++) {
      await page.click('#next-transition');
      await expectInView(`stall, next transition ${i + 1}`);
      seen.add(await drawn());
    }
    // The steps moved the state: the check ran on more than one place of the diagram.
    expect(seen.size).toBeGreaterThan(1);
    expect(pg.errors).toEqual([]);
  });

  test('trusts-any-200 on the stall: resumed, at the end', async () => {
    await pg.open();
    await load('seven-minute-stall');
    await page.selectOption('#client', 'trusts-any-200');
    await page.waitForSelector('#diagram[data-machine="trusts-any-200"] svg');
    await page.click('#last');
    await expectInView('trusts-any-200, last step');
    expect(await drawn()).toBe('resumed');
    await page.screenshot({ path: new URL('state-in-view-trusting.png', SHOTS).pathname });
    expect(pg.errors).toEqual([]);
  });
});
