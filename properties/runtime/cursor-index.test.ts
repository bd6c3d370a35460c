/**
 * The guard finds a stream by the last id it delivered (`GuardCore.holding`, for a resume's
 * `Last-Event-ID`). The track that remembered last writes its ids to the index lazily
 * (cursor-index.ts); this property holds the lazy index to the index written at
 * every id (the guard before issue 31), over streams that share ids, and kills a lazy index
 * that skips its check for an id the index already holds.
 */
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { GuardCore } from '../../src/runtime/guard-core.js';
import { mutantCore, type GuardMutantName } from '../../src/runtime-mutants/guard-mutants.js';
import type { Track } from '../../src/runtime/guard-track.js';
import { announceSeed, runs } from '../support/seed.js';

const seed = announceSeed('properties/runtime/cursor-index.test.ts');

const IDS = ['1', '2', '3', '4'];
type Op =
  { op: 'remember'; track: number; id: string } | { op: 'free'; track: number } | { op: 'read' };
const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      op: fc.constant('remember' as const),
      track: fc.nat(2),
      id: fc.constantFrom(...IDS),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('free' as const), track: fc.nat(2) }) },
  { weight: 2, arbitrary: fc.constant({ op: 'read' as const }) },
);

/** The index written at every id: what `remember` and `forget` did before the lazy index. */
class EagerIndex {
  readonly map = new Map<string, number>();
  readonly last = new Map<number, string>();
  readonly freed = new Set<number>();
  forget(t: number) {
    const id = this.last.get(t);
    if (id !== undefined && this.map.get(id) === t) this.map.delete(id);
  }
  remember(t: number, id: string) {
    if (this.freed.has(t)) return;
    this.forget(t);
    this.last.set(t, id);
    this.map.set(id, t);
  }
  free(t: number) {
    this.forget(t);
    this.freed.add(t);
  }
}

/** The first op after which the guard's index and the eager one find different streams. */
function firstDifference(ops: Op[], mutant?: GuardMutantName): number | null {
  const core = mutant ? mutantCore({}, mutant) : new GuardCore({});
  const tracks: Track[] = [0, 1, 2].map(() => core.newTrack(null));
  const eager = new EagerIndex();
  for (let at = 0; at < ops.length; at++) {
    const o = ops[at]!;
    if (o.op === 'remember') {
      core.remember(tracks[o.track]!, o.id);
      eager.remember(o.track, o.id);
    } else if (o.op === 'free') {
      core.free(tracks[o.track]!);
      eager.free(o.track);
    }
    // (Reads write the lazy ids: the writes between two reads are what the lazy index defers.)
    if (o.op === 'read' || at === ops.length - 1) {
      for (const id of IDS) {
        const found = core.holding(id);
        const want = eager.map.get(id);
        if ((found === undefined ? undefined : tracks.indexOf(found)) !== want) return at;
      }
    }
  }
  return null;
}

const ops = fc.array(op, { maxLength: 40 });

describe('the lazy cursor index finds what the eager one finds', () => {
  test.prop([ops], { seed, numRuns: runs(3000) })('after any ops between two reads', (os) => {
    expect(firstDifference(os)).toBeNull();
  });

  test('the property kills lazy-index-skips-taken-ids', () => {
    const result = fc.check(
      fc.property(ops, (os) => firstDifference(os, 'lazy-index-skips-taken-ids') === null),
      { seed, numRuns: runs(3000) },
    );
    expect(result.failed).toBe(true);
  });
});
