/**
 * docs/mutation.md's table is merged from the tracked summary of the runs
 * (docs/mutation-runs.json) and the per-run Stryker reports on disk (src/docs-gen/mutation-docs.ts):
 * the newest run wins per file, a file with no report on disk keeps the summary's row (a fresh
 * clone has no reports: regenerating the page there drops nothing), a file whose code changed
 * since its run is marked as such (never shown as the score of the code as it is), and a survivor
 * without a reason is reported as missing, so the page never calls a mutant equivalent that
 * nobody looked at.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import {
  codeStates,
  fileRun,
  mergeRuns,
  MUTATION_BEGIN,
  MUTATION_END,
  mutationBlock,
  runsJson,
  sha256,
  survivorKey,
  TASKS_BEGIN,
  TASKS_END,
  type MutationRuns,
} from '../../src/docs-gen/mutation-docs.js';

const mutant = (status: string, line = 1) => ({
  mutatorName: 'ConditionalExpression',
  replacement: 'true',
  status,
  location: { start: { line, column: 1 }, end: { line, column: 2 } },
});

const report = (source: string, statuses: string[], file = 'a.ts') => ({
  files: { [file]: { source, mutants: statuses.map((s) => mutant(s)) } },
});

const dated = (r: ReturnType<typeof report>, date: string, name = 'r.json') => ({
  name,
  report: r,
  date,
  command: `run ${name}`,
});

const none: MutationRuns = { files: {} };

describe('mutation docs', () => {
  test('the later report wins per file; files of other reports are kept', () => {
    const older = {
      files: {
        ...report('x', ['Survived']).files,
        'b.ts': { source: 'y', mutants: [mutant('Killed')] },
      },
    };
    const newer = report('x', ['Killed']);
    const runs = mergeRuns(none, [
      dated(older, '2026-12-01T00:00:00Z', 'old.json'),
      dated(newer, '2026-12-01T00:00:00Z', 'new.json'),
    ]);
    expect(Object.keys(runs.files)).toEqual(['a.ts', 'b.ts']);
    expect(runs.files['a.ts']!.counts).toEqual({
      Killed: 1,
      Timeout: 0,
      Survived: 0,
      NoCoverage: 0,
    });
    expect(runs.files['a.ts']!.command).toBe('run new.json');
    expect(runs.files['b.ts']!.command).toBe('run old.json');
  });

  test("a file with no report on disk keeps the summary's row and its survivors (a fresh clone)", () => {
    const kept = mergeRuns(none, [
      dated(report('if (x) {}', ['Killed', 'Survived']), '2026-12-01'),
    ]);
    // Another file's report, and no report of a.ts: a.ts's row must stay as the summary has it.
    const runs = mergeRuns(kept, [dated(report('y', ['Killed'], 'b.ts'), '2026-12-02')]);
    expect(runs.files['a.ts']).toEqual(kept.files['a.ts']);
    // No report at all: the page is the summary's.
    const alone = mergeRuns(kept, []);
    const { text, missing } = mutationBlock(
      alone,
      {},
      codeStates(alone, () => 'if (x) {}'),
    );
    expect(text).toMatch(/`a\.ts` +\| +50\.00% \| +1 \| +0 \| +1 \| +0 \| as run/);
    expect(text).toContain('`a.ts:1:1` ConditionalExpression (Survived): `i` → `true`.');
    expect(missing).toEqual(['a.ts | ConditionalExpression | i => true']);
    // And the summary reads back as written.
    expect(JSON.parse(runsJson(runs))).toEqual(runs);
  });

  test("a report older than the summary's entry does not replace it; a newer one does", () => {
    const kept = mergeRuns(none, [dated(report('new code', ['Killed']), '2026-12-05')]);
    const stale = mergeRuns(kept, [dated(report('old code', ['Survived']), '2026-12-04')]);
    expect(stale.files['a.ts']).toEqual(kept.files['a.ts']);
    const fresh = mergeRuns(kept, [dated(report('newer code', ['Survived']), '2026-12-06')]);
    expect(fresh.files['a.ts']!.sha256).toBe(sha256('newer code'));
  });

  test('the code column comes from the hash of the mutated code against the file on disk', () => {
    const runs = mergeRuns(none, [
      dated(
        {
          files: {
            'a.ts': { source: 'same', mutants: [mutant('Killed')] },
            'b.ts': { source: 'old text', mutants: [mutant('Killed')] },
            'gone.ts': { source: '', mutants: [] },
          },
        },
        '2026-12-01',
      ),
    ]);
    const states = codeStates(runs, (f) =>
      f === 'a.ts' ? 'same' : f === 'b.ts' ? 'new text' : undefined,
    );
    expect(Object.fromEntries(states)).toEqual({
      'a.ts': 'as run',
      'b.ts': 'changed since the run',
      'gone.ts': 'changed since the run',
    });
    const { text } = mutationBlock(runs, {}, states);
    expect(text).toMatch(/`a\.ts`.*\| as run/);
    expect(text).toMatch(/`b\.ts`.*changed since the run/);
  });

  test('a survivor is keyed without its line; with a reason it is no longer missing', () => {
    const run = fileRun(
      {
        source: 'let a = 1;\nif (x &&\n  y) {}\n',
        mutants: [
          {
            mutatorName: 'LogicalOperator',
            replacement: 'x ||\n  y',
            status: 'Survived',
            location: { start: { line: 2, column: 5 }, end: { line: 3, column: 4 } },
          },
        ],
      },
      '2026-12-01',
      'cmd',
    );
    expect(run.survivors).toEqual([
      {
        at: '2:5',
        status: 'Survived',
        mutator: 'LogicalOperator',
        original: 'x && y',
        replacement: 'x || y',
      },
    ]);
    const key = survivorKey('a.ts', run.survivors[0]!);
    expect(key).toBe('a.ts | LogicalOperator | x && y => x || y');
    const { text, missing } = mutationBlock({ files: { 'a.ts': run } }, { [key]: 'Because.' });
    expect(missing).toEqual([]);
    expect(text).toContain('Surviving mutants, each equivalent:');
    expect(text).toContain('`x && y` → `x || y`. Because.');
  });

  test('a file set to be mutated that no run covers is listed as not run, not left out', () => {
    const runs = mergeRuns(none, [dated(report('x', ['Killed']), '2026-12-01')]);
    const { text } = mutationBlock(runs, {}, new Map(), ['a.ts', 'b.ts']);
    expect(text).toMatch(/`b\.ts`.*no run of this code yet/);
    expect(text).not.toMatch(/`a\.ts`.*no run/);
  });

  test("the committed page's rows are all in the committed summary (regenerating drops none)", () => {
    const page = readFileSync('docs/mutation.md', 'utf8');
    const runs = JSON.parse(readFileSync('docs/mutation-runs.json', 'utf8')) as MutationRuns;
    const measured = (begin: string, end: string) =>
      [
        ...page
          .slice(page.indexOf(begin), page.indexOf(end))
          .matchAll(/^\| `([^`]+)` +\| +[\d.]+%/gm),
      ].map((m) => m[1]!);
    const rows = [...measured(MUTATION_BEGIN, MUTATION_END), ...measured(TASKS_BEGIN, TASKS_END)];
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.sort()).toEqual(Object.keys(runs.files).sort());
  });
});
