/**
 * The port of the seed's reference function, pinned to the letter: every failure's code,
 * outcome, name and full message, the order in which the checks apply, and the edges of each
 * comparison. reference.test.ts states the semantics; this file makes every word of it count.
 */
import { describe, expect, it } from 'vitest';
import {
  drainWithContinuity,
  StreamResumptionError,
  verifyResumption,
  type Event,
  type ReconnectResult,
} from '../../src/reference.js';

const ev = (id: number): Event => ({ id, kind: 'progress', payload: { n: id } });
const result = (r: Partial<ReconnectResult>): ReconnectResult => ({
  httpStatus: 200,
  replayFloor: null,
  firstEvent: null,
  sessionDurable: true,
  ...r,
});

/** The failure `f` throws, as plain data (it must be a StreamResumptionError). */
function failure(f: () => unknown) {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(StreamResumptionError);
    expect(e).toBeInstanceOf(Error);
    const err = e as StreamResumptionError;
    return { name: err.name, code: err.code, outcome: err.outcome, message: err.message };
  }
  throw new Error('expected a StreamResumptionError');
}

const failed = (code: string, message: string) => ({
  name: 'StreamResumptionError',
  code,
  outcome: 'resumption-failed',
  message,
});

describe('StreamResumptionError', () => {
  it('defaults to resumption-failed and keeps code, outcome and message', () => {
    const e = new StreamResumptionError('m', 'skip');
    expect([e.name, e.code, e.outcome, e.message]).toEqual([
      'StreamResumptionError',
      'skip',
      'resumption-failed',
      'm',
    ]);
    const lost = new StreamResumptionError('gone', 'session-gone', 'session-lost');
    expect(lost.outcome).toBe('session-lost');
  });
});

describe('verifyResumption: every failure, exactly', () => {
  it('404 and 410: session lost', () => {
    for (const s of [404, 410]) {
      expect(failure(() => verifyResumption(41, result({ httpStatus: s })))).toEqual({
        name: 'StreamResumptionError',
        code: 'session-gone',
        outcome: 'session-lost',
        message: `session lost: status=${s}; re-initialize required`,
      });
    }
  });

  it('any other non-200 status, including 2xx and 3xx', () => {
    for (const s of [201, 204, 304, 400, 403, 405, 409, 500, 503]) {
      expect(failure(() => verifyResumption(41, result({ httpStatus: s })))).toEqual(
        failed('bad-status', `unexpected reconnect status=${s}`),
      );
    }
  });

  it('a declared floor above the successor names the lost range', () => {
    expect(failure(() => verifyResumption(41, result({ replayFloor: 67 })))).toEqual(
      failed('cursor-below-floor', 'cursor 41 below replay floor 67; events 42..66 are lost'),
    );
    // One past the successor: exactly one event (42) is gone.
    expect(failure(() => verifyResumption(41, result({ replayFloor: 43 })))).toEqual(
      failed('cursor-below-floor', 'cursor 41 below replay floor 43; events 42..42 are lost'),
    );
  });

  it('a floor at the successor or below loses nothing', () => {
    for (const floor of [42, 41, 0]) {
      expect(verifyResumption(41, result({ replayFloor: floor, firstEvent: ev(42) }))).toEqual(
        ev(42),
      );
    }
  });

  it('the retained floor applies when no floor is declared, and only then', () => {
    expect(failure(() => verifyResumption(41, result({ firstEvent: ev(42) }), 50))).toEqual(
      failed('cursor-below-floor', 'cursor 41 below replay floor 50; events 42..49 are lost'),
    );
    expect(verifyResumption(41, result({ firstEvent: ev(42) }), 42)).toEqual(ev(42));
    // A declared floor wins over the retained one, both ways.
    expect(verifyResumption(41, result({ replayFloor: 42, firstEvent: ev(42) }), 50)).toEqual(
      ev(42),
    );
    expect(failure(() => verifyResumption(41, result({ replayFloor: 50 }), 10)).message).toBe(
      'cursor 41 below replay floor 50; events 42..49 are lost',
    );
    // A declared floor of 0 is a floor, not a missing one.
    expect(verifyResumption(41, result({ replayFloor: 0, firstEvent: ev(42) }), 50)).toEqual(
      ev(42),
    );
  });

  it('no floor at all never fails on the floor, whatever the cursor', () => {
    expect(verifyResumption(-2, result({ firstEvent: ev(-1) }))).toEqual(ev(-1));
  });

  it('a session that is not durable', () => {
    expect(
      failure(() => verifyResumption(41, result({ sessionDurable: false, firstEvent: ev(42) }))),
    ).toEqual(
      failed(
        'not-durable',
        'session not durable across reconnect; implicit re-creation cannot honor Last-Event-ID',
      ),
    );
  });

  it('an empty stream', () => {
    expect(failure(() => verifyResumption(41, result({})))).toEqual(
      failed('unproven', 'reconnect returned an empty stream; cannot prove continuity'),
    );
  });

  it('a first event at or below the cursor: rewind', () => {
    expect(failure(() => verifyResumption(41, result({ firstEvent: ev(41) })))).toEqual(
      failed(
        'rewind',
        'replay rewind: expected event id 42, got 41 (at or below cursor 41: a reset counter or a duplicate)',
      ),
    );
    expect(failure(() => verifyResumption(41, result({ firstEvent: ev(0) }))).message).toBe(
      'replay rewind: expected event id 42, got 0 (at or below cursor 41: a reset counter or a duplicate)',
    );
  });

  it('a first event past the successor: skip, with the count', () => {
    expect(failure(() => verifyResumption(41, result({ firstEvent: ev(43) })))).toEqual(
      failed('skip', 'replay gap: expected event id 42, got 43; silent skip of 1 event(s)'),
    );
    expect(failure(() => verifyResumption(0, result({ firstEvent: ev(130) }))).message).toBe(
      'replay gap: expected event id 1, got 130; silent skip of 129 event(s)',
    );
  });

  it('returns the first event itself', () => {
    const first = ev(42);
    expect(verifyResumption(41, result({ firstEvent: first }))).toBe(first);
  });
});

describe('verifyResumption: the order of the checks', () => {
  const everythingWrong = {
    replayFloor: 100,
    sessionDurable: false,
    firstEvent: ev(7),
  };

  it('status first: 404 and 500 win over every later failure', () => {
    expect(
      failure(() => verifyResumption(41, result({ ...everythingWrong, httpStatus: 410 }))).code,
    ).toBe('session-gone');
    expect(
      failure(() => verifyResumption(41, result({ ...everythingWrong, httpStatus: 500 }))).code,
    ).toBe('bad-status');
  });

  it('then the floor, then durability, then the first event', () => {
    expect(failure(() => verifyResumption(41, result(everythingWrong))).code).toBe(
      'cursor-below-floor',
    );
    expect(
      failure(() => verifyResumption(41, result({ ...everythingWrong, replayFloor: 42 }))).code,
    ).toBe('not-durable');
    expect(
      failure(() =>
        verifyResumption(41, result({ ...everythingWrong, replayFloor: 42, sessionDurable: true })),
      ).code,
    ).toBe('rewind');
  });
});

describe('drainWithContinuity', () => {
  it('returns the first event alone when nothing follows', () => {
    expect(drainWithContinuity(41, [], result({ firstEvent: ev(42) }))).toEqual([ev(42)]);
  });

  it('returns every event of a contiguous stream, in order', () => {
    const events = [ev(43), ev(44), ev(45)];
    expect(drainWithContinuity(41, events, result({ firstEvent: ev(42) }))).toEqual([
      ev(42),
      ...events,
    ]);
  });

  it('fails the first id that breaks the run, naming it', () => {
    const r = result({ firstEvent: ev(42) });
    expect(failure(() => drainWithContinuity(41, [ev(43), ev(43)], r))).toEqual(
      failed('break', 'non-contiguous stream: expected 44, got 43'),
    );
    expect(failure(() => drainWithContinuity(41, [ev(44)], r))).toEqual(
      failed('break', 'non-contiguous stream: expected 43, got 44'),
    );
    expect(failure(() => drainWithContinuity(41, [ev(42)], r)).message).toBe(
      'non-contiguous stream: expected 43, got 42',
    );
  });

  it('verifies the reconnect first, without a retained floor', () => {
    expect(
      failure(() => drainWithContinuity(41, [ev(43)], result({ firstEvent: ev(45) }))),
    ).toEqual(
      failed('skip', 'replay gap: expected event id 42, got 45; silent skip of 3 event(s)'),
    );
  });

  it('reads the events lazily and stops at the break', () => {
    const seen: number[] = [];
    function* events() {
      for (const id of [43, 50, 51]) {
        seen.push(id);
        yield ev(id);
      }
    }
    expect(
      failure(() => drainWithContinuity(41, events(), result({ firstEvent: ev(42) }))).code,
    ).toBe('break');
    expect(seen).toEqual([43, 50]);
  });
});
