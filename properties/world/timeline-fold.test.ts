/**
 * `--brief` timelines: runs of routine lines fold into one, every line of the timeline is in
 * exactly one segment, and the seven-minute stall fits on a screen.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { formatTimeline } from '../../model/world/counterexample.js';
import { runWorld } from '../../model/world/property.js';
import { SEED_SCENARIOS } from '../../model/world/scenarios.js';
import {
  foldTimeline,
  isRoutine,
  MIN_RUN,
  type TimelineSegment,
} from '../../model/world/timeline-fold.js';
import type { TimelineEntry } from '../../model/world/timeline.js';
import { announceSeed } from '../support/seed.js';
import { recordedArb } from './recorded.js';
import { runs } from './helpers.js';

const SEED = announceSeed('properties/world/timeline-fold.test.ts');

/** What is wrong with a folding of `es`, or `null`: coverage, order, and what a run may hold. */
function segmentProblem(
  es: readonly TimelineEntry[],
  segs: readonly TimelineSegment[],
): string | null {
  let next = 0;
  for (const seg of segs) {
    const [from, to] = seg.k === 'line' ? [seg.index, seg.index] : [seg.run.from, seg.run.to];
    if (from !== next) return `segment starts at ${from}, expected ${next}`;
    if (seg.k === 'run') {
      if (to - from + 1 < MIN_RUN) return `run ${from}..${to} is shorter than ${MIN_RUN}`;
      for (let i = from; i <= to; i++)
        if (!isRoutine(es[i]!)) return `entry ${i} in a run is not routine`;
      if (es[from]!.command < 0 !== es[to]!.command < 0)
        return `run ${from}..${to} crosses the epilogue`;
    }
    next = to + 1;
  }
  return next === es.length ? null : `segments end at ${next} of ${es.length}`;
}

const stall = SEED_SCENARIOS.find((s) => s.name === 'seven-minute-stall')!;
const empty200 = SEED_SCENARIOS.find((s) => s.name === 'restart-empty-200')!;

describe('keepalives on timelines', () => {
  test('restart-empty-200 shows the keepalives after the 200, full and brief', () => {
    const w = runWorld(empty200.cfg, empty200.commands, {}, { record: true });
    const after200 = (lines: string[]) =>
      lines.slice(lines.findIndex((l) => /machine <- RESPONSE 200/.test(l)));
    for (const lines of [
      formatTimeline(w, empty200.commands),
      formatTimeline(w, empty200.commands, { brief: true }),
    ])
      expect(
        after200(lines).filter((l) => /machine <- KEEPALIVE +awaitingProof/.test(l)).length,
      ).toBeGreaterThan(0);
  });

  test('a keepalive that changes the state is a line of its own, never folded', () => {
    const entry = (from: string, state: string): TimelineEntry => ({
      t: 0,
      actor: 'client',
      action: 'machine <- KEEPALIVE',
      tag: { k: 'observe', obs: { type: 'KEEPALIVE' }, from: from as never },
      state: state as never,
      cursor: 0,
      command: 0,
    });
    expect(isRoutine(entry('streaming', 'streaming'))).toBe(true);
    expect(isRoutine(entry('awaitingProof', 'delayed'))).toBe(false);
  });
});

describe('brief timelines', () => {
  test('fold every line into exactly one segment, in order (generated worlds)', () => {
    fc.assert(
      fc.property(recordedArb, ({ world }) => {
        const es = world.timeline!;
        expect(segmentProblem(es, foldTimeline(es))).toBeNull();
      }),
      { seed: SEED, numRuns: runs(300) },
    );
  });

  test('the check has teeth: a lost line, a stretched run, a short run are each caught', () => {
    const w = runWorld(stall.cfg, stall.commands, {}, { record: true });
    const es = w.timeline!;
    const segs = foldTimeline(es);
    expect(segmentProblem(es, segs.slice(0, -1))).toMatch(/segments end at/);
    const stretched = segs.map((s) =>
      s.k === 'run' ? { ...s, run: { ...s.run, to: s.run.to + 1 } } : s,
    );
    expect(segmentProblem(es, stretched)).not.toBeNull();
    expect(
      segmentProblem(
        es,
        foldTimeline(es, 1).filter((s) => s.k === 'line'),
      ),
    ).not.toBeNull();
  });

  test('the seven-minute stall is under 60 lines brief, with a legend, and 300 in full', () => {
    const w = runWorld(stall.cfg, stall.commands, {}, { record: true });
    const brief = formatTimeline(w, stall.commands, { brief: true });
    const full = formatTimeline(w, stall.commands);
    console.log(brief.join('\n'));
    expect(brief.length).toBeLessThan(60);
    expect(full.length).toBeGreaterThan(300);
    expect(brief[0]).toMatch(/legend: time is virtual, m:ss/);
    expect(brief.join('\n')).toMatch(
      /-- commands 1\.\.83: Advance\(8000\) x41, Emit x41, Drain\n +2-146 +0:00-5:28 +events 1\.\.41 \(41\) emitted and arrive; keepalive x21 arrive, 145 lines +streaming +41/,
    );
    expect(brief.join('\n')).toMatch(
      /events 42\.\.130 \(89\) emitted, none arrive; keepalive blocked x\d+/,
    );
    // What matters is still printed line by line: the reconnect and the decision.
    expect(brief.join('\n')).toMatch(/answers 200 \(holds 67\.\.130\), replays 130/);
    expect(brief.join('\n')).toMatch(/machine <- EVENT 130 stream=tool +resumptionFailed/);
  });

  test('without brief, the timeline is what it was (no legend, no folding)', () => {
    const w = runWorld(stall.cfg, stall.commands, {}, { record: true });
    const full = formatTimeline(w, stall.commands);
    expect(full[0]).toMatch(/^ {2}# +time +actor +action/);
    expect(full.some((l) => /events \d+\.\.\d+/.test(l))).toBe(false);
  });
});
