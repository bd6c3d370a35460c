/**
 * The named guards and the reason texts, case by case at their boundaries (no cursor, no epoch,
 * no stream, a floor at c, c+1, c+2), and what the machine does with id-less data (`DATA`) and
 * with polling in every state. Small exact tables: each line is one way a guard, a reason or a
 * transition could be written wrong.
 */
import { describe, expect, test } from 'vitest';
import type { ClientStateName } from '../../model/client-machine.js';
import { INITIAL_CONTEXT, type ClientContext } from '../../model/context.js';
import * as g from '../../model/guards.js';
import type { Observation, ResponseObservation } from '../../model/observations.js';
import type { ReasonCode } from '../../model/outcomes.js';
import { explain } from '../../model/reasons.js';
import { runObservations, stateOf } from '../../model/run.js';

const ctx = (over: Partial<ClientContext> = {}): ClientContext => ({ ...INITIAL_CONTEXT, ...over });
const resp = (over: Partial<ResponseObservation> = {}): ResponseObservation => ({
  type: 'RESPONSE',
  status: 200,
  ...over,
});

describe('guards at their boundaries', () => {
  test('sessionGone: 404 and 410 only', () => {
    expect([200, 400, 403, 404, 409, 410, 411, 500].filter((s) => g.isSessionGone(s))).toEqual([
      404, 410,
    ]);
    expect(g.sessionGone(ctx(), resp({ status: 410 }))).toBe(true);
    expect(g.sessionGone(ctx(), resp({ status: 200 }))).toBe(false);
  });

  test('statusNotOk: everything but 200', () => {
    expect(g.statusNotOk(ctx(), resp({ status: 200 }))).toBe(false);
    expect(g.statusNotOk(ctx(), resp({ status: 204 }))).toBe(true);
    expect(g.statusNotOk(ctx(), resp({ status: 199 }))).toBe(true);
  });

  test('sessionNotDurable: only an explicit false', () => {
    expect(g.sessionNotDurable(ctx(), resp({ durable: false }))).toBe(true);
    expect(g.sessionNotDurable(ctx(), resp({ durable: true }))).toBe(false);
    expect(g.sessionNotDurable(ctx(), resp())).toBe(false);
  });

  test('epochChanged: both epochs known and different', () => {
    expect(g.epochChanged(ctx({ epoch: 'e1' }), resp({ epoch: 'e2' }))).toBe(true);
    expect(g.epochChanged(ctx({ epoch: 'e1' }), resp({ epoch: 'e1' }))).toBe(false);
    expect(g.epochChanged(ctx({ epoch: 'e1' }), resp())).toBe(false);
    expect(g.epochChanged(ctx({ epoch: null }), resp({ epoch: 'e2' }))).toBe(false);
  });

  test('cursorBelowFloor: c < F - 1, only with a cursor and a floor', () => {
    const c = 5;
    expect(g.cursorBelowFloor(ctx({ cursor: c }), resp({ floor: c + 1 }))).toBe(false);
    expect(g.cursorBelowFloor(ctx({ cursor: c }), resp({ floor: c + 2 }))).toBe(true);
    expect(g.cursorBelowFloor(ctx({ cursor: c }), resp({ floor: c }))).toBe(false);
    expect(g.cursorBelowFloor(ctx({ cursor: c }), resp())).toBe(false);
    expect(g.cursorBelowFloor(ctx({ cursor: null }), resp({ floor: 100 }))).toBe(false);
    expect(g.cursorBelowFloor(ctx({ cursor: 0 }), resp({ floor: 2 }))).toBe(true);
  });

  test('floorCoversCursor: F <= c + 1; no cursor: any floor', () => {
    const c = 5;
    expect(g.floorCoversCursor(ctx({ cursor: c }), resp({ floor: c + 1 }))).toBe(true);
    expect(g.floorCoversCursor(ctx({ cursor: c }), resp({ floor: c }))).toBe(true);
    expect(g.floorCoversCursor(ctx({ cursor: c }), resp({ floor: c + 2 }))).toBe(false);
    expect(g.floorCoversCursor(ctx({ cursor: c }), resp())).toBe(false);
    expect(g.floorCoversCursor(ctx({ cursor: null }), resp({ floor: 9 }))).toBe(true);
    expect(g.floorCoversCursor(ctx({ cursor: null }), resp())).toBe(false);
  });

  test('eventFromOtherStream: both streams known and different', () => {
    const ev = (stream?: string): Observation =>
      stream === undefined ? { type: 'EVENT', id: 1 } : { type: 'EVENT', id: 1, stream };
    expect(g.eventFromOtherStream(ctx({ stream: 'a' }), ev('b') as never)).toBe(true);
    expect(g.eventFromOtherStream(ctx({ stream: 'a' }), ev('a') as never)).toBe(false);
    expect(g.eventFromOtherStream(ctx({ stream: 'a' }), ev() as never)).toBe(false);
    expect(g.eventFromOtherStream(ctx({ stream: null }), ev('b') as never)).toBe(false);
  });

  test('firstIdIsSuccessor and idRewinds around the cursor', () => {
    const at = (id: number) => ({ type: 'EVENT', id }) as const;
    expect(g.firstIdIsSuccessor(ctx({ cursor: 5 }), at(6))).toBe(true);
    expect(g.firstIdIsSuccessor(ctx({ cursor: 5 }), at(7))).toBe(false);
    expect(g.firstIdIsSuccessor(ctx({ cursor: 5 }), at(5))).toBe(false);
    expect(g.firstIdIsSuccessor(ctx({ cursor: null }), at(9))).toBe(true);
    expect(g.idRewinds(ctx({ cursor: 5 }), at(5))).toBe(true);
    expect(g.idRewinds(ctx({ cursor: 5 }), at(4))).toBe(true);
    expect(g.idRewinds(ctx({ cursor: 5 }), at(6))).toBe(false);
    expect(g.idRewinds(ctx({ cursor: null }), at(0))).toBe(false);
  });

  test('rule 0: cursorDropped, noCursor, idlessSinceCursor', () => {
    const rc = (cursor: number | null) => ({ type: 'RECONNECT', cursor }) as const;
    expect(g.cursorDropped(ctx({ cursor: 3 }), rc(null))).toBe(true);
    expect(g.cursorDropped(ctx({ cursor: null }), rc(null))).toBe(false);
    expect(g.cursorDropped(ctx({ cursor: 3 }), rc(3))).toBe(false);
    expect(g.noCursor(ctx(), rc(null))).toBe(true);
    expect(g.noCursor(ctx(), rc(0))).toBe(false);
    // The data came after the last accepted id (the context's cursor): a cursor at or before it
    // is tainted, a cursor past it names an event after the data; with no id before the data,
    // every cursor is tainted.
    expect(g.idlessSinceCursor(ctx({ idless: true, cursor: 2 }), rc(2))).toBe(true);
    expect(g.idlessSinceCursor(ctx({ idless: true, cursor: 2 }), rc(1))).toBe(true);
    // Delivery order, not ids: a later cursor does not clear the taint, a delivered event does.
    expect(g.idlessSinceCursor(ctx({ idless: true, cursor: 2 }), rc(3))).toBe(true);
    expect(g.idlessSinceCursor(ctx({ idless: true, cursor: null }), rc(5))).toBe(true);
    expect(g.idlessSinceCursor(ctx({ idless: true, cursor: 2 }), rc(null))).toBe(true);
    expect(g.idlessSinceCursor(ctx({ idless: false, cursor: 2 }), rc(2))).toBe(false);
    expect(g.idlessSinceCursor(ctx({ idless: false, cursor: null }), rc(null))).toBe(false);
  });

  test('openOk: an OPEN with 200 only', () => {
    expect(g.openOk(ctx(), { type: 'OPEN', status: 200 })).toBe(true);
    expect(g.openOk(ctx(), { type: 'OPEN', status: 201 })).toBe(false);
    expect(g.openOk(ctx(), { type: 'KEEPALIVE' })).toBe(false);
    expect(g.openOk(ctx(), resp({ status: 200 }))).toBe(false);
  });
});

describe('reason texts, word for word', () => {
  const c = ctx({ cursor: 41, stream: 's1', epoch: 'e1' });
  const cases: [ReasonCode, ClientContext, Observation, string][] = [
    ['successor', c, { type: 'EVENT', id: 42 }, "first event 42 is the cursor's successor"],
    ['successor', ctx(), { type: 'EVENT', id: 1 }, "first event is the cursor's successor"],
    [
      'floor-covers',
      c,
      resp({ floor: 40 }),
      'declared replay floor 40 covers cursor 41; silence is delay',
    ],
    [
      'floor-covers',
      ctx(),
      { type: 'KEEPALIVE' },
      'no replay floor declared, yet KEEPALIVE taken as one covering cursor none; waiting without proof',
    ],
    [
      'no-response',
      c,
      { type: 'DISCONNECT' },
      'no response to the reconnect before the connection broke',
    ],
    ['session-gone', c, resp({ status: 410 }), 'session lost: status=410; re-initialize required'],
    ['session-gone', c, { type: 'END' }, 'session lost: status=?; re-initialize required'],
    ['bad-status', c, resp({ status: 503 }), 'unexpected reconnect status=503'],
    ['bad-status', c, { type: 'END' }, 'unexpected reconnect status=?'],
    [
      'not-durable',
      c,
      resp({ durable: false }),
      'session not durable across reconnect; implicit re-creation cannot honor Last-Event-ID',
    ],
    [
      'epoch-changed',
      c,
      resp({ epoch: 'e2' }),
      'session epoch changed from e1 to e2: implicit re-creation',
    ],
    [
      'epoch-changed',
      c,
      { type: 'END' },
      'session epoch changed from e1 to ?: implicit re-creation',
    ],
    [
      'cursor-below-floor',
      c,
      resp({ floor: 50 }),
      'cursor 41 below replay floor 50; events 42..49 are lost',
    ],
    [
      'cursor-below-floor',
      ctx(),
      resp({ floor: 3 }),
      'cursor none below replay floor 3; events 1..2 are lost',
    ],
    [
      'skip',
      c,
      { type: 'EVENT', id: 130 },
      'replay gap: expected event id 42, got 130; silent skip of 88 event(s)',
    ],
    [
      'skip',
      ctx(),
      { type: 'EVENT', id: 3 },
      'replay gap: expected event id 1, got 3; silent skip of 2 event(s)',
    ],
    [
      'rewind',
      c,
      { type: 'EVENT', id: 1 },
      'replay rewind: expected event id 42, got 1 (at or below cursor 41: a reset counter or a duplicate)',
    ],
    [
      'cross-stream',
      c,
      { type: 'EVENT', id: 42, stream: 's2' },
      'event of stream s2 replayed on a resumption of stream s1',
    ],
    [
      'unproven',
      c,
      { type: 'PROOF_TIMEOUT' },
      'no event proved continuity from cursor 41 before the time allowed to prove the resume ran out; a 200 proves nothing',
    ],
    [
      'unproven-data',
      c,
      { type: 'DATA' },
      'data without an id arrived before any event proved continuity from cursor 41: it cannot be placed after the cursor',
    ],
    ['break', c, { type: 'EVENT', id: 44 }, 'non-contiguous stream: expected 42, got 44'],
    // Each text read from the wrong kind of observation says so (NaN, ?), never throws.
    ['break', c, { type: 'END' }, 'non-contiguous stream: expected 42, got NaN'],
    [
      'skip',
      c,
      { type: 'END' },
      'replay gap: expected event id 42, got NaN; silent skip of NaN event(s)',
    ],
    [
      'rewind',
      c,
      { type: 'END' },
      'replay rewind: expected event id 42, got NaN (at or below cursor 41: a reset counter or a duplicate)',
    ],
    ['cross-stream', c, { type: 'END' }, 'event of stream ? replayed on a resumption of stream s1'],
    ['cursor-below-floor', c, resp(), 'cursor 41 below replay floor NaN; events 42..NaN are lost'],
    [
      'cursor-below-floor',
      c,
      { type: 'END' },
      'cursor 41 below replay floor NaN; events 42..NaN are lost',
    ],
    ['break', ctx(), { type: 'EVENT', id: 2 }, 'non-contiguous stream: expected 1, got 2'],
    [
      'cursor-dropped',
      c,
      { type: 'RECONNECT', cursor: null },
      'reconnect without Last-Event-ID although cursor 41 was received: the server cannot replay',
    ],
    [
      'no-cursor',
      ctx(),
      { type: 'RECONNECT', cursor: null },
      'reconnect without Last-Event-ID: nothing names where the replay must start, so nothing can prove it',
    ],
    [
      'idless-data',
      c,
      { type: 'RECONNECT', cursor: 41 },
      'data without an id was delivered after cursor 41: no Last-Event-ID can name it, so no replay can be proven',
    ],
  ];
  test.each(cases.map(([code, cx, ev, text]) => [code, ev.type, cx, ev, text] as const))(
    '%s on %s',
    (code, _type, cx, ev, text) => {
      expect(explain(code, cx, ev)).toEqual({ code, text });
    },
  );
});

/** Paths that lead the machine into each state, with cursor 2 where there is one. */
const TO: Record<ClientStateName, Observation[]> = {
  connecting: [],
  streaming: [
    { type: 'OPEN', status: 200, epoch: 'e1' },
    { type: 'EVENT', id: 1 },
    { type: 'EVENT', id: 2 },
  ],
  stalled: [],
  closed: [],
  reconnecting: [],
  awaitingProof: [],
  polling: [],
  delayed: [],
  resumed: [],
  resumptionFailed: [],
  sessionLost: [],
};
const reconnect: Observation[] = [
  ...TO.streaming,
  { type: 'DISCONNECT' },
  { type: 'RECONNECT', cursor: 2 },
];
TO.stalled = [...TO.streaming, { type: 'IDLE_TIMEOUT' }];
TO.closed = [...TO.streaming, { type: 'END' }];
TO.reconnecting = reconnect;
TO.awaitingProof = [...reconnect, { type: 'RESPONSE', status: 200 }];
TO.polling = [...TO.awaitingProof, { type: 'END' }];
TO.delayed = [...reconnect, { type: 'RESPONSE', status: 200, floor: 3 }];
TO.resumed = [...TO.awaitingProof, { type: 'EVENT', id: 3 }];
TO.resumptionFailed = [...TO.awaitingProof, { type: 'EVENT', id: 9 }];
TO.sessionLost = [...reconnect, { type: 'RESPONSE', status: 404 }];

const after = (path: Observation[], ...more: Observation[]) => runObservations([...path, ...more]);

describe('id-less data (DATA) in every state', () => {
  // [state, state after DATA, outcome after DATA, idless after DATA]
  const table: [ClientStateName, ClientStateName, string | null, boolean][] = [
    ['connecting', 'connecting', null, false],
    ['streaming', 'streaming', null, true],
    ['stalled', 'stalled', null, false],
    ['closed', 'closed', null, false],
    ['reconnecting', 'reconnecting', null, false],
    ['awaitingProof', 'resumptionFailed', 'resumption-failed', true],
    ['polling', 'polling', null, false],
    ['delayed', 'resumptionFailed', 'resumption-failed', true],
    ['resumed', 'resumed', 'resumed', true],
    ['resumptionFailed', 'resumptionFailed', 'resumption-failed', true],
    ['sessionLost', 'sessionLost', 'session-lost', false],
  ];
  test.each(table)('%s -> %s', (state, next, outcome, idless) => {
    expect(stateOf(after(TO[state]))).toBe(state);
    const snap = after(TO[state], { type: 'DATA' });
    expect(stateOf(snap)).toBe(next);
    expect(snap.context.outcome).toBe(outcome);
    expect(snap.context.idless).toBe(idless);
    if (state === 'awaitingProof' || state === 'delayed')
      expect(snap.context.reason?.code).toBe('unproven-data');
  });

  test('an event with an id after the data makes the stream resumable again', () => {
    const tainted = after(TO.streaming, { type: 'DATA' });
    expect(tainted.context.idless).toBe(true);
    const clean = after(TO.streaming, { type: 'DATA' }, { type: 'EVENT', id: 3 });
    expect(clean.context.idless).toBe(false);
    const r = after(
      TO.streaming,
      { type: 'DATA' },
      { type: 'END' },
      { type: 'RECONNECT', cursor: 2 },
    );
    expect(r.context.reason?.code).toBe('idless-data');
    const ok = after(
      TO.streaming,
      { type: 'DATA' },
      { type: 'EVENT', id: 3 },
      { type: 'END' },
      { type: 'RECONNECT', cursor: 3 },
    );
    expect(stateOf(ok)).toBe('reconnecting');
  });

  test('issue 19 item 11: after an idless-data failure, a cursor past the data is clean', () => {
    // events 1, 2, id-less data, disconnect, reconnect 2 (failed: idless-data), then events 3
    // and 4 on that failed stream, end, reconnect 4: the cursor names an event after the data.
    const failed = after(
      TO.streaming,
      { type: 'DATA' },
      { type: 'DISCONNECT' },
      { type: 'RECONNECT', cursor: 2 },
    );
    expect(failed.context.reason?.code).toBe('idless-data');
    const later = after(
      TO.streaming,
      { type: 'DATA' },
      { type: 'DISCONNECT' },
      { type: 'RECONNECT', cursor: 2 },
      { type: 'RESPONSE', status: 200 },
      { type: 'EVENT', id: 3 },
      { type: 'EVENT', id: 4 },
      { type: 'END' },
      { type: 'RECONNECT', cursor: 4 },
      { type: 'RESPONSE', status: 200 },
      { type: 'EVENT', id: 5 },
    );
    expect(stateOf(later)).toBe('resumed');
    expect(later.context.reason?.code).toBe('successor');
    // Ids that restart lower after the failed reconnect: delivered after the data, they end the
    // taint too (issue 32: the taint is kept in delivery order, never by comparing ids).
    const lower = after(
      TO.streaming,
      { type: 'DATA' },
      { type: 'DISCONNECT' },
      { type: 'RECONNECT', cursor: 2 },
      { type: 'RESPONSE', status: 200 },
      { type: 'EVENT', id: 1 },
      { type: 'END' },
      { type: 'RECONNECT', cursor: 1 },
      { type: 'RESPONSE', status: 200 },
      { type: 'EVENT', id: 2 },
    );
    expect(stateOf(lower)).toBe('resumed');
    // A cursor past the data with no event delivered after it stays tainted.
    const ahead = after(
      TO.streaming,
      { type: 'DATA' },
      { type: 'DISCONNECT' },
      { type: 'RECONNECT', cursor: 2 },
      { type: 'RECONNECT', cursor: 5 },
    );
    expect(ahead.context.reason?.code).toBe('idless-data');
    // The same cursor as before the data (or an earlier one) stays tainted.
    const again = after(
      TO.streaming,
      { type: 'DATA' },
      { type: 'DISCONNECT' },
      { type: 'RECONNECT', cursor: 2 },
      { type: 'RECONNECT', cursor: 2 },
    );
    expect(again.context.reason?.code).toBe('idless-data');
  });

  test('an OPEN clears the taint', () => {
    const snap = after(
      TO.streaming,
      { type: 'DATA' },
      { type: 'END' },
      { type: 'OPEN', status: 200, epoch: 'e1' },
    );
    expect(snap.context.idless).toBe(false);
  });
});

describe('polling', () => {
  test('a poll keeps the cursor and waits; the same cursor continues, cursor+1 proves', () => {
    const poll = after(TO.polling);
    expect(poll.context.outcome).toBeNull();
    expect(poll.context.cursor).toBe(2);
    const again = after(
      TO.polling,
      { type: 'RECONNECT', cursor: 2 },
      { type: 'RESPONSE', status: 200 },
    );
    expect(stateOf(again)).toBe('awaitingProof');
    const proven = after(
      TO.polling,
      { type: 'RECONNECT', cursor: 2 },
      { type: 'RESPONSE', status: 200 },
      { type: 'EVENT', id: 3 },
    );
    expect(stateOf(proven)).toBe('resumed');
  });

  test('in polling only the budget, a reconnect and nothing else count', () => {
    for (const o of [
      { type: 'EVENT', id: 3 },
      { type: 'DATA' },
      { type: 'KEEPALIVE' },
      { type: 'END' },
      { type: 'DISCONNECT' },
      { type: 'IDLE_TIMEOUT' },
      { type: 'OPEN', status: 200 },
      { type: 'RESPONSE', status: 200 },
    ] as Observation[]) {
      expect(stateOf(after(TO.polling, o)), o.type).toBe('polling');
    }
    const out = after(TO.polling, { type: 'PROOF_TIMEOUT' });
    expect(stateOf(out)).toBe('resumptionFailed');
    expect(out.context.reason?.code).toBe('unproven');
    const dropped = after(TO.polling, { type: 'RECONNECT', cursor: null });
    expect(dropped.context.reason?.code).toBe('cursor-dropped');
  });

  test('a disconnect while unproven still fails; an end does not', () => {
    expect(after(TO.awaitingProof, { type: 'DISCONNECT' }).context.reason?.code).toBe('unproven');
    expect(stateOf(after(TO.awaitingProof, { type: 'END' }))).toBe('polling');
  });
});

describe('the state lists the world and the checker read', () => {
  test('accepting states: an event c+1 there is delivered and the state stays accepting', async () => {
    const { ACCEPTING_STATES, PENDING_STATES } = await import('../../model/client-machine.js');
    expect(ACCEPTING_STATES).toEqual(['streaming', 'resumed', 'delayed']);
    for (const s of ACCEPTING_STATES) {
      const next = (after(TO[s]).context.cursor ?? 0) + 1;
      const snap = after(TO[s], { type: 'EVENT', id: next });
      expect(snap.context.cursor, s).toBe(next);
      expect(['streaming', 'resumed'], s).toContain(stateOf(snap));
    }
    expect(PENDING_STATES).toEqual(['reconnecting', 'awaitingProof', 'polling']);
    for (const s of PENDING_STATES) {
      expect(after(TO[s]).context.outcome, s).toBeNull();
      expect(stateOf(after(TO[s], { type: 'PROOF_TIMEOUT' })), s).toBe('resumptionFailed');
    }
  });
});
