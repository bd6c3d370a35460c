/**
 * The playground end to end, in headless Chromium: the page built with esbuild from the model's
 * own code and served on 127.0.0.1. A learner loads the seed's first incident and steps it to
 * resumption-failed; pastes the replay command of a trusts-any-200 counterexample and sees
 * NoSilentPartialResult break; drives a world with the command buttons and exports its
 * timeline as Mermaid. Screenshots go to reports/playground/ (git-ignored).
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { skipBrowserSuites } from '../support/chromium.js';
import { openPlayground, SHOTS, type PlaygroundPage } from '../support/playground-page.js';

/** The replay command of the trusts-any-200 kill in docs/world.md (seed 1). */
const TRUSTS_ANY_200 =
  "mcp-resumption explore --seed 1 --path 11:0:0:0:0:0:0:0:0:0:0:0:1:3:2:3:4:5 --replay-path '/h:D' --kind mixed --mutant trusts-any-200";

describe.skipIf(skipBrowserSuites())('the playground in Chromium', () => {
  let pg: PlaygroundPage;
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    pg = await openPlayground({ width: 1400, height: 1000 });
    ({ page, errors } = pg);
  });
  afterAll(async () => {
    await pg?.close();
  });

  const open = () => pg.open();

  const text = (selector: string) => page.locator(selector).innerText();
  const claim = (name: string) =>
    page.locator(`#claims tr[data-claim="${name}"] td`).nth(1).innerText();

  test('seven-minute-stall: stepped to the end, the model client fails resumption', async () => {
    await open();
    await page.click('#scenario-seven-minute-stall');
    expect(await text('#step')).toBe('step 0 of 266');
    expect(await text('#state')).toBe('streaming');
    await page.click('#last');
    expect(await text('#state')).toBe('resumptionFailed');
    expect(await text('#decision')).toMatch(/replay gap: expected event id 42, got 130/);
    expect(await text('#ring-facts')).toMatch(/ring of 64: floor 67, head 130/);
    expect(await text('#delivered')).toBe('41 event(s): 1..41');
    expect(await claim('NoUnprovenAcceptance')).toBe('held');
    expect(await claim('NoSilentPartialResult')).toBe('held');
    expect(await text('#timeline')).toMatch(/events 42\.\.130 \(89\) emitted, none arrive/);
    // The current state is highlighted on the simplified diagram.
    await page.waitForSelector('#diagram svg g.current');
    expect(await page.locator('#diagram svg g.current').textContent()).toBe('resumptionFailed');
    await page.screenshot({
      path: new URL('seven-minute-stall.png', SHOTS).pathname,
      fullPage: true,
    });
    // One step back is the world before the epilogue: the reconnect still awaits its proof.
    await page.click('#back');
    expect(await text('#step')).toBe('step 265 of 266');
    expect(await text('#state')).toBe('resumptionFailed');
    await page.click('#back');
    await page.click('#back');
    expect(await text('#step')).toBe('step 263 of 266');
    expect(await text('#state')).toBe('awaitingProof');
    expect(errors).toEqual([]);
  });

  test('trusts-any-200: its replay command loads a world where NoSilentPartialResult breaks', async () => {
    await open();
    await page.fill('#load-text', TRUSTS_ANY_200);
    await page.click('#load');
    expect(await text('#load-error')).toBe('');
    expect(await page.locator('#client').inputValue()).toBe('trusts-any-200');
    await page.click('#last');
    expect(await text('#state')).toBe('delayed');
    expect(await claim('NoSilentPartialResult')).toBe('BROKEN');
    expect(await text('#claims')).toMatch(/no result and no error: the agent waits forever/);
    await page.screenshot({ path: new URL('trusts-any-200.png', SHOTS).pathname, fullPage: true });
    // The same world with the model's client: the claim holds, the client escalates.
    await page.selectOption('#client', 'model');
    expect(await text('#state')).toBe('resumptionFailed');
    expect(await claim('NoSilentPartialResult')).toBe('held');
    expect(errors).toEqual([]);
  });

  test('the command buttons drive a world, and its timeline exports as Mermaid', async () => {
    await open();
    await page.selectOption('#preset', 'valid');
    await page.click('#cmd-emit');
    await page.click('#cmd-emit');
    // The tool's pace (I) let event 1 be read; event 2 waits in the socket until a read.
    expect(await text('#client-facts')).toMatch(/^cursor 1,/);
    await page.click('#cmd-drain');
    expect(await text('#client-facts')).toMatch(/^cursor 2,/);
    await page.click('#cmd-disconnect');
    expect(await text('#state')).toBe('closed');
    await page.fill('#advance-ms', '2000');
    await page.click('#cmd-advance');
    expect(await text('#state')).toBe('delayed');
    await page.click('#cmd-emit');
    expect(await text('#state')).toBe('delayed');
    await page.click('#cmd-drain');
    expect(await text('#state')).toBe('resumed');
    expect(await text('#step')).toBe('step 7 of 7');
    await page.click('#cmd-finish');
    expect(await text('#state')).toBe('resumed');
    expect(await claim('Delivery')).toBe('held');
    expect(await page.locator('#world-string').inputValue()).toMatch(
      /^world:v1;client=model;config=D=64,.*;commands=Emit,Emit,Drain,Disconnect,Advance\(2000\),Emit,Drain$/,
    );
    await page.click('#export');
    await page.waitForSelector('#export-diagram svg');
    expect(await page.locator('#export-text').inputValue()).toMatch(
      /^```mermaid\nsequenceDiagram\n {2}participant C as client[\s\S]*C->>S: 0:03 GET, Last-Event-ID 2/,
    );
    await page.screenshot({
      path: new URL('buttons-and-export.png', SHOTS).pathname,
      fullPage: true,
    });
    expect(errors).toEqual([]);
  });

  test('a world string that cannot be read is one line under the Load box', async () => {
    await open();
    await page.fill('#load-text', 'world:v1;commands=Jump');
    await page.click('#load');
    expect(await text('#load-error')).toBe('unknown command "Jump"');
  });

  test('the trace panel: the binding chooser, an example judged, bad input named', async () => {
    await open();
    // The page opens on the SSE binding, its first example checked and drawn.
    expect(await page.locator('#trace-binding').inputValue()).toBe('mcp-sse');
    await page.waitForSelector('#trace-diagram svg');
    expect(await text('#trace-report')).toMatch(/expected {2}resumed \(rule 6/);
    // Task streams: the examples are the binding's own, and a 410 with events_gone is judged
    // resumption-failed, so the implementation that said session-lost is misclassified.
    await page.selectOption('#trace-binding', 'mcp-tasks');
    const names = await page
      .locator('#trace-example option')
      .evaluateAll((os) => os.map((o) => o.getAttribute('value') ?? ''));
    expect(names.length).toBeGreaterThan(3);
    expect(names.every((n) => n.startsWith('tasks-'))).toBe(true);
    await page.selectOption('#trace-example', 'tasks-events-gone-410');
    await page.waitForFunction(
      "document.getElementById('trace-report').textContent.includes('misclassified')",
    );
    expect(await text('#trace-report')).toMatch(/expected {2}resumption-failed \(rule 5/);
    expect(await text('#trace-exit')).toBe('check would exit 0');
    await page.waitForSelector('#trace-diagram svg');
    expect(await page.locator('#trace-diagram svg').innerHTML()).toContain('events_gone');
    await page.screenshot({ path: new URL('trace-panel.png', SHOTS).pathname, fullPage: true });
    // A trace whose binding line names the other binding is bad input, as for `check`.
    await page.selectOption('#trace-binding', 'mcp-sse');
    await page.fill('#trace-text', '{"type":"binding","name":"mcp-tasks"}\n');
    await page.click('#trace-check');
    await page.waitForFunction("document.getElementById('trace-error').textContent !== ''");
    expect(await text('#trace-error')).toMatch(/^line 1: /);
    expect(await text('#trace-exit')).toBe('check would exit 2 (bad input)');
    expect(errors).toEqual([]);
  });
});
