/**
 * The search's copies of a world (model/verify/snapshot.ts) and its encoding of a state
 * (model/verify/abstraction.ts), against plain replays. Snapshots share the lists the world
 * only appends to and the task wire's translator with the world they were taken from, and the
 * last branch of a state takes its snapshot itself rather than a copy: whatever order the
 * search loads them in (a stack of the prefixes of one path, cut back and grown again), a
 * loaded snapshot must be exactly the world that replaying its path from the root gives, and
 * encode as that world does, into a buffer of any size.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { encodeContext, Encoding, encodeWorld } from '../../model/verify/abstraction.js';
import { fingerprint, fingerprintString, fp } from '../../model/verify/fingerprint.js';
import { applyMove, enabled, MOVES, type Spent } from '../../model/verify/moves.js';
import { SCOPES, scopeConfigs } from '../../model/verify/scope.js';
import { restoreSnapshot, takeSnapshot, type WorldSnapshot } from '../../model/verify/snapshot.js';
import type { PolicyName } from '../../model/world/config.js';
import { snapshotKey } from '../../model/world/machine-cache.js';
import { createWorld, type World } from '../../model/world/world.js';
import { announceSeed, runs } from '../support/seed.js';

const seed = announceSeed('properties/verify/snapshot.test.ts');
const scope = SCOPES.small;

/** Everything of a world's state that a move can change, as plain data. */
function stateOf(w: World): unknown {
  const { cache, behaviour, entry, snap, wire, ...client } = w.client;
  void cache;
  void behaviour;
  void entry;
  return {
    now: w.clock.now,
    server: w.server,
    net: w.net,
    truth: w.truth,
    client: { ...client, snap: snapshotKey(snap), wire: wire?.key() ?? null },
  };
}

/** Move `m` if it is enabled in `w` (what the search would do), with its spending. */
function tryMove(w: World, m: number, spent: Spent): boolean {
  if (!enabled(w, m, scope.bounds, spent)) return false;
  applyMove(w, m, spent);
  return true;
}

/** The world (and its spending) that applying `path` from root `cfg` gives, from scratch. */
function replay(policy: PolicyName, root: number, path: readonly number[]) {
  const w = createWorld(scopeConfigs(scope, policy)[root]!);
  const spent = { disconnects: 0, otherEmits: 0 };
  for (const m of path) applyMove(w, m, spent);
  return { w, spent };
}

/** A step of the walk: load prefix `back` of the stack (cut to it), then try `moves`. */
const walkArb = fc.array(
  fc.record({
    back: fc.nat(12),
    moves: fc.array(fc.nat(MOVES.length - 1), { maxLength: 6 }),
    last: fc.boolean(),
  }),
  { minLength: 1, maxLength: 8 },
);

describe('snapshots of a search stack', () => {
  test.each<PolicyName>(['honest', 'reorder-same-tick', 'tasks-honest', 'tasks-duplicates'])(
    'a loaded snapshot is the world its path replays to, under %s',
    (policy) => {
      const configs = scopeConfigs(scope, policy);
      fc.assert(
        fc.property(fc.nat(configs.length - 1), walkArb, (root, walk) => {
          const scratch = createWorld(configs[root]!);
          const stack: { snap: WorldSnapshot; spent: Spent; path: number[] }[] = [
            { snap: takeSnapshot(scratch), spent: { disconnects: 0, otherEmits: 0 }, path: [] },
          ];
          for (const step of walk) {
            // Load a prefix, dropping every snapshot above it (as the search does); with
            // `last`, the prefix's own snapshot is loaded and dropped too.
            const k = Math.min(step.back, stack.length - 1);
            const last = step.last && k > 0;
            const base = stack[k]!;
            stack.length = last ? k : k + 1;
            restoreSnapshot(scratch, base.snap, last);
            expect(stateOf(scratch)).toEqual(stateOf(replay(policy, root, base.path).w));
            let spent = { ...base.spent };
            let path = base.path;
            if (last) {
              // Its snapshot is gone: take it again before growing the stack from here.
              stack.push({ snap: takeSnapshot(scratch), spent: { ...spent }, path });
            }
            for (const m of step.moves) {
              if (!tryMove(scratch, m, spent)) continue;
              path = [...path, m];
              stack.push({ snap: takeSnapshot(scratch), spent: { ...spent }, path });
              spent = { ...spent };
            }
            const want = replay(policy, root, path);
            expect(stateOf(scratch)).toEqual(stateOf(want.w));
            expect(spent).toEqual(want.spent);
          }
          // Every snapshot still on the stack holds its prefix.
          for (const s of [...stack].reverse()) {
            restoreSnapshot(scratch, s.snap);
            expect(stateOf(scratch)).toEqual(stateOf(replay(policy, root, s.path).w));
          }
        }),
        { seed, numRuns: runs(60) },
      );
    },
  );
});

describe('the encoding of a state', () => {
  test.each<PolicyName>(['honest', 'reorder-same-tick', 'tasks-honest'])(
    'does not depend on the size of the buffer it starts with, under %s',
    (policy) => {
      const configs = scopeConfigs(scope, policy);
      fc.assert(
        fc.property(
          fc.nat(configs.length - 1),
          fc.array(fc.nat(MOVES.length - 1), { maxLength: 12 }),
          fc.nat(40),
          (root, path, size) => {
            const w = createWorld(configs[root]!);
            const spent = { disconnects: 0, otherEmits: 0 };
            for (const m of path) tryMove(w, m, spent);
            const ctx = encodeContext(root, configs[root]!, new Map());
            const big = new Encoding();
            encodeWorld(w, ctx, spent, big);
            const small = new Encoding();
            small.buf = new Int32Array(size);
            encodeWorld(w, ctx, spent, small);
            expect(small.values()).toEqual(big.values());
            expect(small.buf.length).toBeGreaterThanOrEqual(big.n);
            // Encoding again into the same buffer gives the same values.
            encodeWorld(w, ctx, spent, small);
            expect(small.values()).toEqual(big.values());
          },
        ),
        { seed, numRuns: runs(100) },
      );
    },
  );

  test('a string is fingerprinted as the list of its character codes', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 80 }), (text) => {
        const codes = Array.from({ length: text.length }, (_, i) => text.charCodeAt(i));
        fingerprint(codes);
        const want = [fp.hi, fp.lo];
        fingerprintString(text);
        expect([fp.hi, fp.lo]).toEqual(want);
      }),
      { seed, numRuns: runs(200) },
    );
  });
});
