/**
 * The A2A rows (`conformance --binding a2a`) against `@a2a-js/sdk` 1.3.0 on loopback: with the
 * store behind latency, the kit finds the seam loss (e6), the loss behind a snapshot equal to
 * the client's view (e5) and the seam duplicate (e4), from the wire; with the SDK's in-memory
 * store, the same drives give no false verdict. Every cell's verdict is the `a2a` checker's
 * (era 1.0): a resubscribe proves nothing. Each claim is shown able to fail: a judge blind to
 * the snapshot gives false losses on the in-memory store, a judge blind to duplicates misses
 * the seam duplicate. Bad input is one line and exit 2.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import { runA2aMatrix, type A2aCell } from '../../src/conformance/a2a/cells.js';
import { judgeTruth, type A2aTruthReport } from '../../src/conformance/a2a/truth.js';
import { runCli } from '../support/cli.js';

let cells: A2aCell[] = [];

beforeAll(async () => {
  cells = await runA2aMatrix({ timeoutMs: 4000 });
}, 180_000);

const cell = (row: 'memory' | 'slow-store', scenario: string) => {
  const c = cells.find((x) => x.row.endsWith(`+${row}`) && x.scenario === scenario);
  expect(c, `${row} × ${scenario}`).toBeDefined();
  return c!;
};

const truth = (c: A2aCell) => {
  expect(c.truth.truth, `${c.row} × ${c.scenario}: ${c.truth.text}`).not.toBe('error');
  return c.truth as A2aTruthReport;
};

/** The property the in-memory rows must keep: no loss, no duplicate, no error. */
const noFalseVerdict = (t: { truth: string }) => t.truth === 'clean' || t.truth === 'refused';

describe('conformance --binding a2a against @a2a-js/sdk 1.3.0', () => {
  test('slow store: the seam loss, the loss behind an equal snapshot, the seam duplicate', () => {
    const loss = truth(cell('slow-store', 'seam-loss'));
    expect(loss.truth).toBe('loss');
    expect(loss.lost).toEqual([6]);
    expect(loss.clientArtifact).not.toBe(loss.serverArtifact);
    expect(cell('slow-store', 'seam-loss').placement).toBe('e6 persisted after the snapshot read');

    const equal = truth(cell('slow-store', 'snapshot-equal'));
    expect(equal.truth).toBe('loss');
    expect(equal.lost).toEqual([5]);
    expect(equal.snapshotEqualsView).toBe(true);

    const dup = truth(cell('slow-store', 'seam-duplicate'));
    expect(dup.truth).toBe('duplicate');
    expect(dup.duplicated).toEqual([4]);
    expect(dup.clientArtifact).toBe('e2;e4;e4;e6;e8;');
    expect(dup.serverArtifact).toBe('e2;e4;e6;e8;');
  });

  test('in-memory store: the same drives give no false verdict', () => {
    const memory = cells.filter((c) => c.row.endsWith('+memory'));
    expect(memory.length).toBe(6);
    for (const c of memory)
      expect(noFalseVerdict(c.truth), `${c.scenario}: ${c.truth.text}`).toBe(true);
    // The windows were there to be hit: the drive published e6 before the resubscribe, and
    // the in-memory store persisted it before the snapshot read.
    expect(cell('memory', 'seam-loss').placement).toBe('e6 persisted before the snapshot read');
  });

  test('the checker (a2a, era 1.0): no resubscribe is proven, whatever the truth', () => {
    for (const c of cells) {
      expect(c.verdict, `${c.row} × ${c.scenario}`).not.toBeNull();
      expect(c.verdict!.outcome, `${c.row} × ${c.scenario}: ${c.verdict!.reason}`).not.toBe(
        'resumed',
      );
      expect(['resumption-failed', 'session-lost']).toContain(c.verdict!.outcome);
    }
    for (const s of ['away', 'seam-loss', 'snapshot-equal', 'seam-duplicate']) {
      for (const row of ['memory', 'slow-store'] as const) {
        const v = cell(row, s).verdict!;
        expect(v.outcome, `${row} × ${s}`).toBe('resumption-failed');
        expect(v.rule, `${row} × ${s}: ${v.reason}`).toBe(0);
      }
    }
    // The SDK's errors come with HTTP 200: the kit reads them from the JSON-RPC body.
    for (const [s, code] of [
      ['finished-while-away', -32004],
      ['unknown-task', -32001],
    ] as const) {
      const err = cell('memory', s).run!.after.find((f) => f.kind === 'error');
      expect(err, s).toMatchObject({ kind: 'error', status: 200, code });
      expect(cell('memory', s).truth.truth).toBe('refused');
    }
  });

  test('the dev-1.1 reading sees the seam loss as a gap, and nothing on the in-memory store', () => {
    expect(cell('slow-store', 'seam-loss').dev11!.breaks).toEqual(['expected 7, got 8']);
    for (const c of cells.filter((x) => x.row.endsWith('+memory'))) {
      expect(c.dev11?.breaks ?? [], c.scenario).toEqual([]);
    }
  });

  test('mutant snapshot-blind: false losses on the in-memory store (killed)', () => {
    const c = cell('memory', 'away');
    const r = c.run!;
    const wrong = judgeTruth(r.emitted, r.before, r.after, r.server, 'snapshot-blind');
    expect(noFalseVerdict(wrong)).toBe(false);
    expect(wrong.lost).toEqual([4, 5]);
  });

  test('mutant duplicate-blind: the seam duplicate reads clean (killed)', () => {
    const c = cell('slow-store', 'seam-duplicate');
    const r = c.run!;
    const wrong = judgeTruth(r.emitted, r.before, r.after, r.server, 'duplicate-blind');
    expect(wrong.truth).not.toBe('duplicate');
  });

  test('bad input: one line, exit 2', async () => {
    const r = await runCli(['conformance', '--binding', 'a2a', '--only', 'nope']);
    expect(r.code).toBe(2);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).toMatch(/unknown A2A scenario "nope"/);
    const u = await runCli(['conformance', '--binding', 'a2a', '--url', 'http://127.0.0.1:1/']);
    expect(u.code).toBe(2);
    expect(u.err).toMatch(/--url is not an option of --binding a2a/);
  });
});
