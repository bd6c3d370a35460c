/**
 * The checker's episodes and proof budget at their edges: which reconnect continues an episode,
 * when the budget runs out (strictly after it, measured from the episode's first reconnect),
 * what a budget cannot touch, the note about id-less data, and the options' own checks.
 */
import { describe, expect, test } from 'vitest';
import { checkTrace, IDLESS_NOTE, TraceChecker, type CheckReport } from '../../src/trace/index.js';
import { checkText } from './helpers.js';

const L = (o: Record<string, unknown>) => JSON.stringify(o);
const open = L({ type: 'open', status: 200, epoch: 'e1' });
const ev = (id: number, t?: number) => L({ type: 'event', id, ...(t === undefined ? {} : { t }) });
const rc = (cursor: number | null, extra: Record<string, unknown> = {}) =>
  L({ type: 'reconnect', cursor, ...extra });
const ok200 = (extra: Record<string, unknown> = {}) =>
  L({ type: 'response', status: 200, ...extra });
const end = (t?: number) => L({ type: 'end', ...(t === undefined ? {} : { t }) });
const decide = (outcome: string) => L({ type: 'decision', outcome });

const summary = (r: CheckReport) =>
  r.reconnects.map((x) => [x.line, x.expected, x.verdict, x.code, x.episode?.polls ?? 1]);

describe('which reconnect continues an episode', () => {
  test('the same cursor after a poll joins it; every reconnect gets its outcome', async () => {
    const r = await checkTrace([open, ev(1), end(), rc(1), ok200(), end(), rc(1), ok200(), ev(2)]);
    expect(summary(r)).toEqual([
      [4, 'resumed', 'unchecked', 'successor', 2],
      [7, 'resumed', 'unchecked', 'successor', 2],
    ]);
    expect(r.reconnects[0]!.episode).toEqual({ first: 4, polls: 2 });
    expect(r.reconnects[0]!.decidedAt).toBe(9);
  });

  test('another cursor after a poll starts a new episode (the poll is settled as failed)', async () => {
    const r = await checkTrace([open, ev(1), ev(2), end(), rc(2), ok200(), end(), rc(1)]);
    expect(summary(r)).toEqual([
      [5, 'resumption-failed', 'unchecked', 'unproven', 1],
      [8, 'resumption-failed', 'unchecked', 'no-response', 1],
    ]);
  });

  test('another stream after a poll starts a new episode', async () => {
    const r = await checkTrace([
      open,
      L({ type: 'event', id: 1, stream: 'a' }),
      end(),
      rc(1, { stream: 'a' }),
      ok200(),
      end(),
      rc(1, { stream: 'b' }),
    ]);
    expect(r.reconnects.map((x) => x.episode)).toEqual([undefined, undefined]);
    expect(r.reconnects.map((x) => x.stream)).toEqual(['a', 'b']);
  });

  test('a reconnect after a disconnect is not a poll: the unproven one before has failed', async () => {
    const r = await checkTrace([
      open,
      ev(1),
      end(),
      rc(1),
      ok200(),
      L({ type: 'disconnect' }),
      rc(1),
      ok200(),
      ev(2),
    ]);
    expect(summary(r)).toEqual([
      [4, 'resumption-failed', 'unchecked', 'unproven', 1],
      [7, 'resumed', 'unchecked', 'successor', 1],
    ]);
  });

  test('only a waiting decision on a poll the episode went on from is excused', async () => {
    const lines = [open, ev(1), end(), rc(1), ok200(), end()];
    const failedLater = [rc(1), ok200(), ev(5), decide('resumption-failed')];
    const waited = await checkTrace([...lines, decide('delayed'), ...failedLater]);
    expect(waited.reconnects.map((x) => x.verdict)).toEqual(['ok', 'ok']);
    expect(waited.reconnects[0]!.reason).toMatch(
      /^the implementation waited \(delayed\) on an empty poll and polled again with the same cursor: ok; the episode is judged at its last reconnect \(line 8\), where the oracle says resumption-failed: /,
    );
    const claimed = await checkTrace([...lines, decide('resumed'), ...failedLater]);
    expect(claimed.reconnects.map((x) => x.verdict)).toEqual(['unsafe-accept', 'ok']);
    expect(claimed.exitCode).toBe(1);
    const lastWaits = await checkTrace([...lines, decide('delayed'), rc(1), ok200(), ev(5)]);
    expect(lastWaits.reconnects[1]!.verdict).toBe('unchecked');
  });

  test('the episode note names the episode by its first and last reconnect', async () => {
    const r = await checkTrace([open, ev(1), end(), rc(1), ok200(), end(), rc(1), ok200(), ev(2)]);
    expect(r.reconnects[1]!.reason).toBe(
      "no decision line; the oracle says resumed: first event 2 is the cursor's successor [poll 2 of 2 with cursor 1: one episode, reconnects from line 4 to line 7]",
    );
  });

  test('issue 19 item 15: the output is linear in the number of polls (no poll lists every poll)', async () => {
    const polls = (n: number) => [
      open,
      ev(1),
      end(),
      ...Array.from({ length: n }, () => [rc(1), ok200(), end(), decide('delayed')]).flat(),
    ];
    const longest = (r: CheckReport) => Math.max(...r.reconnects.map((x) => x.reason.length));
    const few = await checkTrace(polls(10));
    const many = await checkTrace(polls(2000));
    expect(many.reconnects).toHaveLength(2000);
    // Only the numbers in the note grow (a few digits), not a list of every poll's line.
    expect(longest(many)).toBeLessThan(longest(few) + 20);
    const text = async (n: number) => (await checkText(polls(n).join('\n') + '\n')).out.length;
    const [n1, n2] = [await text(1000), await text(2000)];
    expect(n2).toBeLessThan(2.1 * n1);
  });
});

describe('issue 19 item 16: with a proof budget, t must not decrease', () => {
  const lines = [open, ev(1, 0), end(10), rc(1, { t: 100000 }), ok200({ t: 100010 }), ev(2, 5000)];

  test('a t that goes back is bad input naming its line and the line it goes back from', async () => {
    await expect(checkTrace(lines, { proofBudget: 60000 })).rejects.toThrow(
      'line 6: t 5000 is earlier than t 100010 on line 5: with a proof budget, t must not decrease',
    );
  });

  test('an equal t is fine, and without a budget t is not read at all', async () => {
    const same = [open, ev(1, 0), end(10), rc(1, { t: 10 }), ok200({ t: 10 }), ev(2, 10)];
    expect((await checkTrace(same, { proofBudget: 0 })).reconnects[0]!.expected).toBe('resumed');
    expect((await checkTrace(lines)).reconnects[0]!.expected).toBe('resumed');
  });
});

describe('the proof budget', () => {
  const polled = (t: number) => [
    open,
    ev(1, 0),
    end(1),
    rc(1, { t: 1000 }),
    ok200({ t: 1000 }),
    end(2000),
    rc(1, { t: 3000 }),
    ok200({ t: 3000 }),
    ev(2, t),
  ];

  test('an event exactly at the budget still proves; one ms later the episode has failed', async () => {
    const at = await checkTrace(polled(6000), { proofBudget: 5000 });
    expect(at.reconnects.map((x) => x.expected)).toEqual(['resumed', 'resumed']);
    const late = await checkTrace(polled(6001), { proofBudget: 5000 });
    expect(late.reconnects.map((x) => x.expected)).toEqual([
      'resumption-failed',
      'resumption-failed',
    ]);
    expect(late.reconnects[0]!.decidedAt).toBe(9);
    expect(late.reconnects[0]!.reason).toBe(
      'no decision line; the oracle says resumption-failed: no event proved continuity from cursor 1 before the time allowed to prove the resume ran out; a 200 proves nothing (the proof budget of 5000 ms from line 4 ran out by line 9) [poll 1 of 2 with cursor 1: one episode, reconnects from line 4 to line 7]',
    );
  });

  test('measured from the first reconnect of the episode, not from each poll', async () => {
    // 2,999 ms after the second poll, but 5,001 ms after the first reconnect.
    const r = await checkTrace(polled(6001), { proofBudget: 5000 });
    expect(r.reconnects[1]!.expected).toBe('resumption-failed');
  });

  test('no budget without the option, or without t on the first reconnect', async () => {
    const none = await checkTrace(polled(999_999));
    expect(none.reconnects[0]!.expected).toBe('resumed');
    const lines = polled(999_999);
    lines[3] = rc(1);
    const untimed = await checkTrace(lines, { proofBudget: 5000 });
    expect(untimed.reconnects[0]!.expected).toBe('resumed');
  });

  test('a floor that covers the cursor makes the episode delayed, for at most the budget (rule 7.1)', async () => {
    const delayedUntil = (t: number) =>
      checkTrace(
        [
          open,
          ev(1),
          end(),
          rc(1, { t: 0 }),
          ok200({ floor: 2, t: 0 }),
          L({ type: 'keepalive', t }),
        ],
        { proofBudget: 5000 },
      );
    expect((await delayedUntil(5000)).reconnects[0]!.expected).toBe('delayed');
    const late = (await delayedUntil(9e6)).reconnects[0]!;
    expect(late.expected).toBe('resumption-failed');
    expect(late.code).toBe('unproven');
    expect(late.decidedAt).toBe(6);
  });

  test('a reconnect that closes an unproven window starts its own budget, even with the same cursor', async () => {
    // Not a poll (the stream did not end) and not after a delayed one: the first window settles
    // as failed, and the second reconnect's budget runs from its own line.
    const r = await checkTrace(
      [
        open,
        ev(1),
        end(),
        rc(1, { t: 0 }),
        ok200({ t: 0 }),
        rc(1, { t: 3000 }),
        ok200({ t: 3000 }),
        L({ type: 'event', id: 2, t: 6000 }),
      ],
      { proofBudget: 5000 },
    );
    expect(r.reconnects.map((x) => x.expected)).toEqual(['resumption-failed', 'resumed']);
  });

  test('a delayed reconnect of the same cursor goes on with the budget; another cursor does not', async () => {
    const lines = (cursor: number) => [
      open,
      ev(1),
      ev(2),
      end(),
      rc(1, { t: 0 }),
      ok200({ floor: 2, t: 0 }),
      end(3000),
      rc(cursor, { t: 3001 }),
      ok200({ floor: cursor + 1, t: 3002 }),
      L({ type: 'keepalive', t: 6000 }),
    ];
    const same = await checkTrace(lines(1), { proofBudget: 5000 });
    expect(same.reconnects.map((x) => x.expected)).toEqual(['delayed', 'resumption-failed']);
    expect(same.reconnects[1]!.reason).toContain('the proof budget of 5000 ms from line 5');
    const other = await checkTrace(lines(2), { proofBudget: 5000 });
    expect(other.reconnects.map((x) => x.expected)).toEqual(['delayed', 'delayed']);
  });

  test('a t that is not a number is bad input only when the budget reads it', async () => {
    const lines = [open, ev(1), L({ type: 'end', t: 'soon' })];
    await expect(checkTrace(lines)).resolves.toBeDefined();
    await expect(checkTrace(lines, { proofBudget: 5 })).rejects.toThrow(
      'line 3: t must be a number of milliseconds, got "soon"',
    );
  });

  test('the budget must be a non-negative number of ms', () => {
    expect(() => new TraceChecker({ proofBudget: -1 })).toThrow(
      'proofBudget must be a non-negative number of ms, got -1',
    );
    expect(() => new TraceChecker({ proofBudget: Number.NaN })).toThrow(
      'proofBudget must be a non-negative number of ms, got NaN',
    );
    expect(() => new TraceChecker({ proofBudget: Infinity })).toThrow();
    expect(() => new TraceChecker({ proofBudget: 0 })).not.toThrow();
  });
});

describe('id-less data in a trace', () => {
  test('one note, naming the first such line; none without id-less data', async () => {
    const data = L({ type: 'event', data: 'x' });
    const r = await checkTrace([open, ev(1), data, data]);
    expect(r.summary.notes).toEqual([`line 3: ${IDLESS_NOTE}`]);
    expect(IDLESS_NOTE).toBe(
      'events without an id are id-less data (DATA): delivered, never replayable, and a reconnect after one cannot be proven; before version 0.2 check read them as keepalives',
    );
    const clean = await checkTrace([open, ev(1)]);
    expect('notes' in clean.summary).toBe(false);
  });

  test('a decision before any reconnect is bad input', async () => {
    await expect(checkTrace([open, decide('resumed')])).rejects.toThrow(
      'line 2: decision with no reconnect before it',
    );
  });
});
