/**
 * What the guard reads of a replay acknowledgment (docs/spec.md#caught-up, rule 5): its floor,
 * and its head. Hostile loopback servers script the resume answer byte by byte; the guard
 * alone (the SDK-level runs are in ./caught-up.test.ts). No timing assertions: a budget that
 * should not fail a stream is far shorter than the silence that follows.
 *
 * Review S7: a comment before the acknowledgment is a keepalive, not the answer's first block
 * (rule 5.1): an honest ack after a keepalive is read as the ack it is.
 */
import { describe, expect, test } from 'vitest';
import { REPLAY_ACK_METHOD } from '../../src/runtime/continuity-store.js';
import { continuityGuard, StreamResumptionError } from '../../src/runtime/index.js';
import {
  failureOf,
  FIRST_THREE as FIRST,
  hostileSuite,
  note,
  RESULT,
  sse,
  SSE_HEADERS,
  type Step,
} from './hostile.js';

const serve = hostileSuite();
const CALL = '{"jsonrpc":"2.0","id":1,"method":"x"}';
const BUDGET_MS = 300;

function ack(params: Record<string, unknown>): string {
  return sse(null, { jsonrpc: '2.0', method: REPLAY_ACK_METHOD, params });
}

/** Resumes cursor 3 against a server whose resume answer is `steps`. */
async function resume(steps: Step[]) {
  const h = await serve((method) =>
    method === 'POST' ? FIRST : { status: 200, headers: SSE_HEADERS, steps },
  );
  const failures: StreamResumptionError[] = [];
  const decisions: string[] = [];
  const codes: string[] = [];
  const fetchFn = continuityGuard(fetch, {
    endCalls: 'error',
    proofTimeoutMs: BUDGET_MS,
    onFailure: (e) => failures.push(e),
    onDecision: (d) => {
      decisions.push(d.outcome);
      if (d.reason) codes.push(d.reason.code);
    },
  });
  await (await fetchFn(h.url, { method: 'POST', body: CALL })).text();
  const res = await fetchFn(h.url, { method: 'GET', headers: { 'last-event-id': '3' } });
  const error = await failureOf(res.text());
  return { error, failures, decisions, codes };
}

/** Keepalives every 50 ms for `ms`: a silence far longer than the budget. */
function quiet(ms: number): Step[] {
  const steps: Step[] = [];
  for (let t = 0; t < ms; t += 50) steps.push({ wait: 50 }, { write: ': keepalive\n\n' });
  return steps;
}

describe('review S7: a keepalive before the acknowledgment', () => {
  test('an honest ack after a comment is read as the ack: delayed, then resumed by 4', async () => {
    const r = await resume([
      { write: ': keepalive\n\n' },
      { write: ack({ floor: 3 }) },
      { write: sse(4, RESULT) },
      { end: true },
    ]);
    expect(r.error).toBeNull();
    expect(r.failures).toEqual([]);
    expect(r.decisions).toEqual(['delayed', 'resumed']);
  });

  test('a caught-up ack after comments: resumed, and no clock fails the quiet stream', async () => {
    const r = await resume([
      { write: ': keepalive\n\n: another\n\n' },
      { write: ack({ floor: 1, head: 3 }) },
      ...quiet(BUDGET_MS * 4),
      { write: sse(4, RESULT) },
      { end: true },
    ]);
    expect(r.error).toBeNull();
    expect(r.failures).toEqual([]);
    expect(r.codes).toEqual(['caught-up']);
  });

  test('comments alone state nothing: answered, never proven, failed when the budget runs out (rule 7.4)', async () => {
    // A comment is not the first block (rule 5.1): a server that sends only comments after its
    // 200 states no floor and no head, and no event proves the resume.
    const r = await resume(quiet(BUDGET_MS * 4));
    expect(r.error).toBeInstanceOf(StreamResumptionError);
    expect(r.failures.map((f) => f.code)).toEqual(['unproven']);
  });

  test('id-less data after a comment is still id-less data before proof', async () => {
    const r = await resume([{ write: ': keepalive\n\n' + sse(null, note(9)) }, { end: true }]);
    expect(r.failures.map((f) => f.code)).toEqual(['unproven-data']);
  });
});

describe('the head an acknowledgment states (rule 5)', () => {
  test('head = cursor: caught up; a silence past the budget does not fail the stream', async () => {
    const r = await resume([
      { write: ack({ floor: 1, head: 3 }) },
      ...quiet(BUDGET_MS * 4),
      { write: sse(4, note(4)) + sse(5, RESULT) },
      { end: true },
    ]);
    expect(r.error).toBeNull();
    expect(r.failures).toEqual([]);
    expect(r.decisions).toEqual(['resumed']);
    expect(r.codes).toEqual(['caught-up']);
  });

  test('head = cursor, then a skip: the successor rule fails the stream at the skip', async () => {
    const r = await resume([
      { write: ack({ floor: 1, head: 3 }) },
      { wait: 50 },
      { write: sse(6, note(6)) },
      ...quiet(BUDGET_MS * 4),
    ]);
    expect(r.error).toBeInstanceOf(StreamResumptionError);
    expect(r.failures.map((f) => f.code)).toEqual(['break']);
  });

  test('head > cursor: events 4..head are owed, and the budget bounds them (unproven)', async () => {
    const r = await resume([{ write: ack({ floor: 1, head: 5 }) }, ...quiet(BUDGET_MS * 4)]);
    expect(r.decisions).toEqual(['delayed', 'resumption-failed']);
    expect(r.failures.map((f) => f.code)).toEqual(['unproven']);
  });

  test('head < cursor: the server lost what it sent (head-behind), failed at once', async () => {
    const r = await resume([{ write: ack({ floor: 1, head: 2 }) }, ...quiet(BUDGET_MS * 4)]);
    expect(r.failures.map((f) => f.code)).toEqual(['head-behind']);
    expect(r.failures[0]!.message).toMatch(/stated head 2 is below cursor 3/);
  });

  test('a head that is not an integer is no statement: judged as a floor alone', async () => {
    const r = await resume([{ write: ack({ floor: 1, head: '3' }) }, ...quiet(BUDGET_MS * 4)]);
    expect(r.decisions).toEqual(['delayed', 'resumption-failed']);
    expect(r.failures.map((f) => f.code)).toEqual(['unproven']);
  });
});
