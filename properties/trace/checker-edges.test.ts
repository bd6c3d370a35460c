/**
 * The checker's smaller promises, exactly: the observation each line maps to (no stray keys),
 * the shape of every report (strictly: no key with an undefined value), cursors ahead per
 * stream and across opens, breaks that name their stream, the order findings reach a sink, a
 * sink that listens to nothing, and the error for a machine that leaves a reconnect undecided.
 */
import { describe, expect, test } from 'vitest';
import {
  checkTrace,
  observationOf,
  parseTraceLine,
  TraceChecker,
  type TraceLine,
} from '../../src/trace/index.js';
import { neverTimesOut } from './helpers.js';

const L = (o: Record<string, unknown>) => JSON.stringify(o);
const open = L({ type: 'open', status: 200 });
const ev = (id: number, stream?: string) =>
  L({ type: 'event', id, ...(stream === undefined ? {} : { stream }) });
const rc = (cursor: number | null, stream?: string) =>
  L({ type: 'reconnect', cursor, ...(stream === undefined ? {} : { stream }) });
const ok200 = L({ type: 'response', status: 200 });

describe('observationOf: one observation per line, no stray keys', () => {
  const cases: [string, unknown][] = [
    ['{"type":"open","status":200}', { type: 'OPEN', status: 200 }],
    ['{"type":"open","status":200,"epoch":"e1"}', { type: 'OPEN', status: 200, epoch: 'e1' }],
    ['{"type":"event","id":3}', { type: 'EVENT', id: 3 }],
    ['{"type":"event","id":3,"stream":"s"}', { type: 'EVENT', id: 3, stream: 's' }],
    ['{"type":"event","data":"x"}', { type: 'DATA' }],
    ['{"type":"keepalive"}', { type: 'KEEPALIVE' }],
    ['{"type":"idle-timeout"}', { type: 'IDLE_TIMEOUT' }],
    ['{"type":"disconnect"}', { type: 'DISCONNECT' }],
    ['{"type":"end"}', { type: 'END' }],
    ['{"type":"reconnect","cursor":4}', { type: 'RECONNECT', cursor: 4 }],
    ['{"type":"reconnect","cursor":null}', { type: 'RECONNECT', cursor: null }],
    ['{"type":"reconnect","cursor":4,"stream":"s"}', { type: 'RECONNECT', cursor: 4, stream: 's' }],
    ['{"type":"response","status":200}', { type: 'RESPONSE', status: 200 }],
    [
      '{"type":"response","status":200,"floor":3,"epoch":"e2","durable":false}',
      { type: 'RESPONSE', status: 200, floor: 3, epoch: 'e2', durable: false },
    ],
    ['{"type":"decision","outcome":"resumed"}', null],
  ];
  test.each(cases)('%s', (text, expected) => {
    expect(observationOf(parseTraceLine(text, 1) as TraceLine)).toStrictEqual(expected);
  });
});

describe('report shapes, strictly', () => {
  test('a reconnect with no stream, no decision: no such keys at all', async () => {
    const r = await checkTrace([open, ev(1), rc(1), L({ type: 'response', status: 404 })]);
    expect(r.reconnects).toStrictEqual([
      {
        line: 3,
        cursor: 1,
        expected: 'session-lost',
        verdict: 'unchecked',
        reason:
          'no decision line; the oracle says session-lost: session lost: status=404; re-initialize required',
        code: 'session-gone',
        rule: 2,
        decidedAt: 4,
      },
    ]);
  });

  test('with a stream and a decision, both are reported', async () => {
    const r = await checkTrace([
      open,
      ev(1, 's'),
      rc(1, 's'),
      L({ type: 'response', status: 404 }),
      L({ type: 'decision', outcome: 'session-lost' }),
    ]);
    expect(r.reconnects[0]).toMatchObject({ stream: 's', actual: 'session-lost', decisionLine: 5 });
  });
});

describe('cursors ahead', () => {
  test('per stream: the last id of the cursor stream counts, not the last id overall', async () => {
    const r = await checkTrace([open, ev(3, 'a'), ev(9, 'b'), rc(5, 'a')]);
    expect(r.cursorAhead).toStrictEqual([{ line: 4, cursor: 5, lastReceived: 3, stream: 'a' }]);
  });

  test('without a stream: the last id overall, and no stream key', async () => {
    const r = await checkTrace([open, ev(1), ev(2), rc(4)]);
    expect(r.cursorAhead).toStrictEqual([{ line: 4, cursor: 4, lastReceived: 2 }]);
  });

  test('issue 19 item 17: "stream": "" means no stream, as an empty id or cursor means none', async () => {
    // The issue's input: an empty stream is compared with the last id overall (cursor ahead).
    const issue = await checkTrace([L({ type: 'event', id: 2 }), rc(4, '')]);
    expect(issue.cursorAhead).toStrictEqual([{ line: 2, cursor: 4, lastReceived: 2 }]);
    expect(issue.exitCode).toBe(1);
    // Not the stream of the events recorded without one: id 9 came last, on stream a.
    const mixed = [open, ev(1), ev(9, 'a'), rc(5, '')];
    expect((await checkTrace(mixed)).cursorAhead).toEqual([]);
    // Line for line the same report as without the field, for events and reconnects alike.
    const withEmpty = [open, ev(1, ''), ev(2, ''), L({ type: 'disconnect' }), rc(2, '')];
    const without = [open, ev(1), ev(2), L({ type: 'disconnect' }), rc(2)];
    const a = await checkTrace([...withEmpty, ok200, ev(3, 'b')]);
    expect(a).toStrictEqual(await checkTrace([...without, ok200, ev(3, 'b')]));
    expect(a.reconnects[0]).not.toHaveProperty('stream');
    expect(parseTraceLine(ev(7, ''), 1)).toStrictEqual({ type: 'event', id: 7 });
    expect(parseTraceLine(rc(7, ''), 1)).toStrictEqual({ type: 'reconnect', cursor: 7 });
  });

  test('an empty stream field lets the id pattern name the stream', async () => {
    const pattern = { regex: /^(?<stream>[a-z]*)_(?<seq>\d+)$/ };
    const line = L({ type: 'event', id: 'a_7', stream: '' });
    expect(parseTraceLine(line, 1, pattern)).toStrictEqual({ type: 'event', id: 7, stream: 'a' });
    const none = L({ type: 'reconnect', cursor: '_7', stream: '' });
    expect(parseTraceLine(none, 1, pattern)).toStrictEqual({ type: 'reconnect', cursor: 7 });
  });

  test('a successful open forgets what the stream before received; a failed one does not', async () => {
    const fresh = await checkTrace([open, ev(1), ev(5), open, rc(7)]);
    expect(fresh.cursorAhead).toEqual([]);
    const failed = await checkTrace([open, ev(1), ev(5), L({ type: 'open', status: 500 }), rc(7)]);
    expect(failed.cursorAhead).toStrictEqual([{ line: 5, cursor: 7, lastReceived: 5 }]);
  });
});

describe('breaks and the order of findings', () => {
  test('a break names its stream when the event does, and not otherwise', async () => {
    const named = await checkTrace([open, ev(1, 's'), ev(3, 's')]);
    expect(named.breaks).toStrictEqual([
      {
        line: 3,
        expected: 2,
        got: 3,
        stream: 's',
        reason: 'non-contiguous stream: expected 2, got 3',
      },
    ]);
    const bare = await checkTrace([open, ev(1), ev(3)]);
    expect(bare.breaks).toStrictEqual([
      { line: 3, expected: 2, got: 3, reason: 'non-contiguous stream: expected 2, got 3' },
    ]);
  });

  test('findings inside an open window wait for its reconnect report, in line order', () => {
    const seen: string[] = [];
    const checker = new TraceChecker(
      {},
      {
        reconnect: (r) => seen.push(`reconnect ${r.line}`),
        break: (b) => seen.push(`break ${b.line}`),
        cursorAhead: (c) => seen.push(`ahead ${c.line}`),
      },
    );
    for (const l of [
      open,
      ev(1),
      rc(4),
      L({ type: 'response', status: 200 }),
      ev(5),
      ev(7),
      rc(9),
    ]) {
      checker.push(l);
    }
    expect(seen).toEqual(['reconnect 3', 'ahead 3', 'break 6']);
    checker.finish();
    expect(seen).toEqual(['reconnect 3', 'ahead 3', 'break 6', 'reconnect 7', 'ahead 7']);
  });

  test('a sink that listens to nothing is fine', () => {
    const checker = new TraceChecker({}, {});
    for (const l of [open, ev(1), ev(3), rc(9), L({ type: 'response', status: 200 })]) {
      checker.push(l);
    }
    expect(checker.lines).toBe(5);
    expect(checker.finish()).toMatchObject({ breaks: 1, cursorAhead: 1, exitCode: 1 });
  });
});

describe('a machine that never settles', () => {
  test('is named, with the line and the state it was left in', async () => {
    await expect(
      checkTrace([open, ev(1), rc(1), L({ type: 'response', status: 200 })], {
        machine: neverTimesOut,
      }),
    ).rejects.toThrow('the machine left the reconnect of line 3 undecided in state awaitingProof');
  });
});
