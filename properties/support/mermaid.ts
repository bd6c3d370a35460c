/**
 * Renders Mermaid sources in a headless Chromium page, with Mermaid from node_modules (its
 * single-file browser build, injected into a blank page: no network, no server). A syntax
 * error comes back as the error text Mermaid gives, so a suite can name the block that broke.
 */
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

/** The browser build of Mermaid in node_modules. */
export const MERMAID_SCRIPT = createRequire(import.meta.url).resolve('mermaid/dist/mermaid.min.js');

/** A blank page with Mermaid loaded and initialized (no auto-rendering). */
export async function mermaidPage(page: Page): Promise<Page> {
  await page.setContent('<!doctype html><html><body><div id="out"></div></body></html>');
  await page.addScriptTag({ path: MERMAID_SCRIPT });
  await page.evaluate(() => {
    const m = (globalThis as unknown as { mermaid: { initialize(o: object): void } }).mermaid;
    m.initialize({ startOnLoad: false, securityLevel: 'strict' });
  });
  return page;
}

/** What rendering one source gave: the SVG, or Mermaid's error. */
export type RenderResult = { ok: true; svg: string } | { ok: false; error: string };

/** The part of `document` the page code uses. */
interface MiniDocument {
  getElementById(id: string): { innerHTML: string } | null;
}

let counter = 0;

/** Renders `source` on a {@link mermaidPage}; with `show`, the SVG replaces the page body. */
export async function renderMermaid(
  page: Page,
  source: string,
  show = false,
): Promise<RenderResult> {
  counter++;
  return page.evaluate(
    async ({ source, id, show }) => {
      const m = (
        globalThis as unknown as {
          mermaid: { render(id: string, text: string): Promise<{ svg: string }> };
        }
      ).mermaid;
      try {
        const { svg } = await m.render(id, source);
        // The suites compile without the DOM library: the one DOM call, typed by hand.
        const doc = (globalThis as unknown as { document: MiniDocument }).document;
        if (show) doc.getElementById('out')!.innerHTML = svg;
        return { ok: true as const, svg };
      } catch (e) {
        return { ok: false as const, error: String((e as Error)?.message ?? e) };
      }
    },
    { source, id: `m${counter}`, show },
  );
}
