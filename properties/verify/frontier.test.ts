/**
 * The merge that makes the parallel search deterministic: successors sent by several workers,
 * each list in path order, are visited in path order overall, so the owner keeps, of the
 * paths that reach one fingerprint, the first in path order: the one a single thread keeps.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  CandidateList,
  comparePaths,
  mergeInOrder,
  type Candidates,
} from '../../src/verify/frontier.js';
import { announceSeed, runs } from '../support/seed.js';

const seed = announceSeed('properties/verify/frontier.test.ts');
const DEPTH = 3;

/** A path: root, then DEPTH moves; with a fingerprint drawn from a few, so that paths collide. */
const pathArb = fc.record({
  root: fc.nat(3),
  moves: fc.array(fc.nat(10), { minLength: DEPTH, maxLength: DEPTH }),
  fp: fc.nat(7),
});
type P = { root: number; moves: number[]; fp: number };

function byPath(a: P, b: P): number {
  if (a.root !== b.root) return a.root - b.root;
  for (let k = 0; k < DEPTH; k++) if (a.moves[k] !== b.moves[k]) return a.moves[k]! - b.moves[k]!;
  return 0;
}

function listOf(paths: P[]): Candidates {
  const l = new CandidateList(DEPTH);
  for (const p of [...paths].sort(byPath))
    l.push(p.fp, 1, p.root, p.moves.slice(0, DEPTH - 1), p.moves[DEPTH - 1]!);
  return l.done();
}

describe('mergeInOrder', () => {
  test('visits the lists of every worker in path order, and keeps the first path of each fingerprint', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(pathArb, { maxLength: 12 }), { minLength: 1, maxLength: 4 }),
        (workers) => {
          const lists = workers.map(listOf);
          const visited: { list: Candidates; i: number }[] = [];
          mergeInOrder(lists, (list, i) => visited.push({ list, i }));
          expect(visited).toHaveLength(workers.flat().length);
          for (let k = 1; k < visited.length; k++) {
            const a = visited[k - 1]!;
            const b = visited[k]!;
            expect(comparePaths(a.list, a.i, b.list, b.i)).toBeLessThanOrEqual(0);
          }
          // The first visit of each fingerprint is its smallest path over all the lists.
          const first = new Map<number, { list: Candidates; i: number }>();
          for (const v of visited) if (!first.has(v.list.hi[v.i]!)) first.set(v.list.hi[v.i]!, v);
          for (const p of workers.flat()) {
            const f = first.get(p.fp)!;
            const q = {
              root: f.list.roots[f.i]!,
              moves: Array.from(f.list.moves.subarray(f.i * DEPTH, (f.i + 1) * DEPTH)),
            };
            expect(byPath(q as P, p)).toBeLessThanOrEqual(0);
          }
        },
      ),
      { seed, numRuns: runs(300) },
    );
  });
});
