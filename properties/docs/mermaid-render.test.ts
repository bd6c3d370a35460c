/**
 * Every Mermaid block of docs/*.md renders in a real browser (headless Chromium, Mermaid from
 * node_modules), so that a syntax error fails the suite instead of a reader's page; so do the
 * diagrams the CLI and the playground generate that the docs do not hold.
 */
import { readdirSync, readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { clientMachine } from '../../model/client-machine.js';
import { SEED_SCENARIOS } from '../../model/world/scenarios.js';
import { scenarioDiagram } from '../../src/docs-gen/incident-diagrams.js';
import { simpleDiagram } from '../../src/docs-gen/simple-diagram.js';
import { subjectOf } from '../../src/explore/world-string.js';
import { launchChromium, skipBrowserSuites, type Chromium } from '../support/chromium.js';
import { mermaidPage, renderMermaid } from '../support/mermaid.js';

const DOCS = new URL('../../docs/', import.meta.url);

/** Every ```mermaid block of the top-level pages of docs/, named `page#n` (line). */
function docBlocks(): { name: string; source: string }[] {
  const out: { name: string; source: string }[] = [];
  for (const page of readdirSync(DOCS)
    .filter((f) => f.endsWith('.md'))
    .sort()) {
    const text = readFileSync(new URL(page, DOCS), 'utf8');
    const re = /^```mermaid\n([\s\S]*?)^```$/gm;
    let m: RegExpExecArray | null;
    let n = 0;
    while ((m = re.exec(text)) !== null) {
      const line = text.slice(0, m.index).split('\n').length;
      out.push({ name: `docs/${page} block ${++n} (line ${line})`, source: m[1]! });
    }
  }
  return out;
}

describe.skipIf(skipBrowserSuites())('Mermaid diagrams render in Chromium', () => {
  let browser: Chromium;
  let page: Page;

  beforeAll(async () => {
    browser = await launchChromium();
    page = await mermaidPage(await browser.context.newPage());
  });
  afterAll(async () => {
    await browser?.close();
  });

  test('every block of docs/*.md', async () => {
    const blocks = docBlocks();
    // model.md (two), incident.md (three hand-written, three generated), world.md's kill
    // example is text: at least eight.
    expect(blocks.length).toBeGreaterThanOrEqual(8);
    const failed: string[] = [];
    for (const b of blocks) {
      const r = await renderMermaid(page, b.source);
      if (!r.ok) failed.push(`${b.name}: ${r.error.split('\n')[0]}`);
    }
    expect(failed).toEqual([]);
  });

  test('the generated diagrams the docs do not hold: highlighted states, the naive client', async () => {
    const sources = [
      simpleDiagram(clientMachine, { highlight: 'awaitingProof' }),
      simpleDiagram(clientMachine, { highlight: 'connecting' }),
      ...SEED_SCENARIOS.map((s) => scenarioDiagram(s, subjectOf({ client: 'trusts-any-200' }))),
    ];
    for (const source of sources) {
      const r = await renderMermaid(page, source);
      expect(r.ok ? '' : r.error, source.split('\n').slice(0, 3).join(' / ')).toBe('');
    }
  });

  test('the check has teeth: a syntax error is reported, not drawn', async () => {
    const r = await renderMermaid(page, 'sequenceDiagram\n  C->>S: one; two');
    expect(r.ok).toBe(false);
    const s = await renderMermaid(page, 'stateDiagram-v2\n  a --> : no target');
    expect(s.ok).toBe(false);
  });
});
