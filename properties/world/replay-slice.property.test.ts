/**
 * What an honest server replays after a cursor (`after` in model/world/policies.ts): the events
 * of its log with a greater id. The log's ids are contiguous, so the replay is found by
 * arithmetic; a log whose ends do not span its length (the world never builds one) is scanned.
 * Both ways give what a scan gives, for every cursor below, inside and above the log; the
 * property kills a slice that trusts contiguity without checking it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { EventFrame } from '../../model/world/frames.js';
import { after } from '../../model/world/policies.js';
import { announceSeed, runs, SEED } from '../support/seed.js';

announceSeed('properties/world/replay-slice.property.test.ts');

const frame = (id: number): EventFrame => ({
  k: 'event',
  id,
  stream: 'tool',
  epoch: 'e1',
  emittedAt: 0,
  result: false,
});

/** A contiguous log (first..first+n-1), or, sometimes, one with a gap or a repeat. */
const log = fc
  .tuple(
    fc.nat({ max: 30 }),
    fc.nat({ max: 12 }),
    fc.option(fc.tuple(fc.nat(), fc.integer({ min: -1, max: 3 }))),
  )
  .map(([first, n, flaw]) => {
    const ids = Array.from({ length: n }, (_, i) => first + i);
    if (flaw && n > 1) {
      const at = 1 + (flaw[0] % (n - 1));
      for (let i = at; i < n; i++) ids[i]! += flaw[1] === 0 ? 1 : flaw[1];
    }
    return ids.map(frame);
  });

type Replay = (log: readonly EventFrame[], c: number) => EventFrame[];

const scans = (replay: Replay) =>
  fc.property(log, fc.integer({ min: -2, max: 50 }), (l, c) => {
    expect(replay(l, c)).toEqual(l.filter((e) => e.id > c));
  });

describe('an honest replay', () => {
  it('is the events after the cursor, as a scan finds them', () => {
    fc.assert(scans(after), { seed: SEED, numRuns: runs(2000) });
  });

  it('kills a slice that trusts the log to be contiguous', () => {
    const trusting: Replay = (l, c) =>
      l.length === 0 ? [] : l.slice(Math.min(l.length, Math.max(0, c + 1 - l[0]!.id)));
    expect(fc.check(scans(trusting), { seed: SEED, numRuns: 2000 }).failed).toBe(true);
  });
});
