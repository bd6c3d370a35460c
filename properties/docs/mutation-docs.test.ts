/**
 * docs/mutation.md's table is merged from per-run Stryker reports (src/docs-gen/mutation-docs.ts): the
 * newest report wins per file, a file whose code changed since its run is marked as such (never
 * shown as the score of the code as it is), and a survivor without a reason is reported as
 * missing, so the page never calls a mutant equivalent that nobody looked at.
 */
import { describe, expect, test } from 'vitest';
import { mergeReports, mutationBlock } from '../../src/docs-gen/mutation-docs.js';

const mutant = (status: string, line = 1) => ({
  mutatorName: 'ConditionalExpression',
  replacement: 'true',
  status,
  location: { start: { line, column: 1 }, end: { line, column: 2 } },
});

const report = (source: string, statuses: string[]) => ({
  files: { 'a.ts': { source, mutants: statuses.map((s) => mutant(s)) } },
});

describe('mutation docs', () => {
  test('the later report wins per file; files of other reports are kept', () => {
    const older = {
      files: {
        ...report('x', ['Survived']).files,
        'b.ts': { source: 'y', mutants: [mutant('Killed')] },
      },
    };
    const newer = report('x', ['Killed']);
    const { report: merged, stale } = mergeReports([
      { name: 'old.json', report: older },
      { name: 'new.json', report: newer },
    ]);
    expect(Object.keys(merged.files).sort()).toEqual(['a.ts', 'b.ts']);
    expect(merged.files['a.ts']!.mutants.map((m) => m.status)).toEqual(['Killed']);
    expect(stale.size).toBe(0);
  });

  test('a file changed since its run is marked, and a missing file is named', () => {
    const { report: merged, stale } = mergeReports(
      [
        { name: 'r.json', report: report('old text', ['Killed']) },
        { name: 's.json', report: { files: { 'gone.ts': { source: '', mutants: [] } } } },
      ],
      (file) => (file === 'a.ts' ? 'new text' : undefined),
    );
    expect([...stale.keys()].sort()).toEqual(['a.ts', 'gone.ts']);
    expect(stale.get('a.ts')).toMatch(/changed since the run in r\.json/);
    expect(stale.get('gone.ts')).toMatch(/no such file/);
    const { text } = mutationBlock(merged, {}, new Set(stale.keys()));
    expect(text).toMatch(/`a\.ts`.*changed since the run/);
  });

  test('an unchanged file reads "as run"; a survivor without a reason is missing', () => {
    const r = report('if (x) {}', ['Killed', 'Survived']);
    const { stale } = mergeReports([{ name: 'r.json', report: r }], () => 'if (x) {}');
    const { text, missing } = mutationBlock(r, {}, new Set(stale.keys()));
    expect(text).toMatch(/`a\.ts`.*50\.00%.*as run/);
    expect(missing).toHaveLength(1);
    expect(text).toContain('**Not examined yet**');
    expect(text).toContain('or marked as not examined yet (1)');
  });

  test('a file set to be mutated that no report covers is listed as not run, not left out', () => {
    const r = report('x', ['Killed']);
    const { text } = mutationBlock(r, {}, new Set(), ['a.ts', 'b.ts']);
    expect(text).toMatch(/`b\.ts`.*no run of this code yet/);
    expect(text).not.toMatch(/`a\.ts`.*no run/);
  });
});
