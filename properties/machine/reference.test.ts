/** The port of the seed's reference function: its semantics and the two corrections. */
import { describe, expect, it } from 'vitest';
import { classifyReconnect } from '../../src/classify.js';
import {
  drainWithContinuity,
  StreamResumptionError,
  verifyResumption,
  type ReconnectResult,
} from '../../src/reference.js';

const ev = (id: number) => ({ id, kind: 'progress', payload: {} });
const result = (r: Partial<ReconnectResult>): ReconnectResult => ({
  httpStatus: 200,
  replayFloor: null,
  firstEvent: null,
  sessionDurable: true,
  ...r,
});

function failure(f: () => unknown): StreamResumptionError {
  try {
    f();
  } catch (e) {
    if (e instanceof StreamResumptionError) return e;
    throw e;
  }
  throw new Error('expected a StreamResumptionError');
}

describe('verifyResumption (seed semantics)', () => {
  it('accepts the successor of the cursor', () => {
    expect(verifyResumption(41, result({ firstEvent: ev(42) })).id).toBe(42);
  });

  it("fails the seed's first variant: 200 and the head (130) after cursor 41", () => {
    const e = failure(() => verifyResumption(41, result({ firstEvent: ev(130) })));
    expect(e.message).toBe('replay gap: expected event id 42, got 130; silent skip of 88 event(s)');
    expect(e.outcome).toBe('resumption-failed');
  });

  it('reports 404 and 410 as session lost', () => {
    for (const s of [404, 410]) {
      const e = failure(() => verifyResumption(41, result({ httpStatus: s })));
      expect(e.outcome).toBe('session-lost');
      expect(e.message).toBe(`session lost: status=${s}; re-initialize required`);
    }
  });

  it('fails a cursor below the floor, naming the lost range', () => {
    const e = failure(() => verifyResumption(41, result({ replayFloor: 67, firstEvent: ev(67) })));
    expect(e.message).toBe('cursor 41 below replay floor 67; events 42..66 are lost');
  });

  it('uses the retained floor when none is declared', () => {
    const e = failure(() => verifyResumption(41, result({ firstEvent: ev(42) }), 50));
    expect(e.code).toBe('cursor-below-floor');
  });

  it('fails a non-durable session and any other status', () => {
    expect(failure(() => verifyResumption(1, result({ sessionDurable: false }))).code).toBe(
      'not-durable',
    );
    expect(failure(() => verifyResumption(1, result({ httpStatus: 500 }))).message).toBe(
      'unexpected reconnect status=500',
    );
  });

  it('drains a contiguous stream and fails a gap inside it', () => {
    const r = result({ firstEvent: ev(42) });
    expect(drainWithContinuity(41, [ev(43), ev(44)], r).map((e) => e.id)).toEqual([42, 43, 44]);
    expect(failure(() => drainWithContinuity(41, [ev(43), ev(45)], r)).message).toBe(
      'non-contiguous stream: expected 44, got 45',
    );
  });
});

describe('correction 1: an id at or below the cursor is a rewind', () => {
  it('says rewind, never a negative skip', () => {
    for (const id of [41, 1, 0]) {
      const e = failure(() => verifyResumption(41, result({ firstEvent: ev(id) })));
      expect(e.code).toBe('rewind');
      expect(e.message).toContain('rewind');
      expect(e.message).not.toMatch(/skip of -/);
    }
  });

  it('the machine says rewind too', () => {
    const c = classifyReconnect(41, result({ firstEvent: ev(1) }));
    expect(c.outcome).toBe('resumption-failed');
    expect(c.reason?.code).toBe('rewind');
  });
});

describe('correction 2 (docs/deviations.md): a declared floor lets the model wait, not the seed', () => {
  it('the seed fails an empty stream even when the floor covers the cursor', () => {
    const e = failure(() => verifyResumption(41, result({ replayFloor: 42 })));
    expect(e.code).toBe('unproven');
  });

  it('the machine waits: delayed', () => {
    expect(classifyReconnect(41, result({ replayFloor: 42 })).outcome).toBe('delayed');
    expect(classifyReconnect(41, result({ replayFloor: 10 })).outcome).toBe('delayed');
  });

  it('without a floor the machine fails the empty stream like the seed', () => {
    const c = classifyReconnect(41, result({}));
    expect(c.outcome).toBe('resumption-failed');
    expect(c.reason?.code).toBe('unproven');
  });
});
