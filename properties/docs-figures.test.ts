/**
 * Figures that come from a run are generated, never copied: outside the generated blocks
 * (between `<!-- name:begin … -->` and `<!-- name:end -->` markers) no page of docs/ may state a
 * rate per second or a speed ratio, and every table of measured counts lives in such a block.
 * A hand-copied figure goes stale silently; this test makes it fail loudly instead.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { expect, test } from 'vitest';

const DOCS = new URL('../docs/', import.meta.url);

/** The page without its generated blocks. */
export function handWritten(doc: string): string {
  return doc.replace(/<!-- ([\w-]+):begin[\s\S]*?<!-- \1:end -->/g, '');
}

/** Hand-written figures that only a run can give: "26,452 interleavings/s", "a ratio of 5.8x". */
export function copiedFigures(text: string): string[] {
  // A target ("≥ 20,000 interleavings/s") is a requirement, not a measurement.
  const perSecond =
    /(?<![≥>=]\s?)(?<![\d,.])\d[\d,.]*\s*(?:million\s+)?[a-z-]+(?:\s[a-z-]+)?\/s\b/gi;
  const ratio = /\b(?:ratio(?: of)?|speed-up(?: of)?)\s+\d+(?:\.\d+)?\s*[x×]/gi;
  return [...(text.match(perSecond) ?? []), ...(text.match(ratio) ?? [])];
}

test('the detector finds copied figures and ignores generated blocks', () => {
  expect(copiedFigures('the exploration 26,452 interleavings/s, a ratio of 5.8x')).toEqual([
    '26,452 interleavings/s',
    'ratio of 5.8x',
  ]);
  expect(copiedFigures('Target: ≥ 20,000 interleavings/s')).toEqual([]);
  expect(copiedFigures(handWritten('<!-- b:begin x -->\n1,000 lines/s\n<!-- b:end -->'))).toEqual(
    [],
  );
});

test('no page of docs/ copies a measured figure by hand', () => {
  const pages = readdirSync(DOCS).filter((f) => f.endsWith('.md'));
  expect(pages.length).toBeGreaterThan(5);
  for (const page of pages) {
    const found = copiedFigures(handWritten(readFileSync(new URL(page, DOCS), 'utf8')));
    expect(found, `docs/${page}: generate these figures (npm run bench:docs) instead`).toEqual([]);
  }
});
