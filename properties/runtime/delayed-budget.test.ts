/**
 * Rule 7.1 at the guard: a replay acknowledgment whose floor covers the cursor makes a resume
 * `delayed`, for at most `proofTimeoutMs` from the episode's first reconnect. Keepalives do not
 * extend it, nor do delayed reconnects of the same cursor; when it runs out the guard errors the
 * stream with StreamResumptionError (`unproven`). Hostile loopback servers, the guard alone (an
 * SDK client drops its cursor after an empty stream). No timing assertions: bounds show by the
 * failure they produce, and the servers' scripts end on their own well after the budget.
 */
import { describe, expect, test } from 'vitest';
import { REPLAY_ACK_METHOD } from '../../src/runtime/continuity-store.js';
import { continuityGuard, StreamResumptionError } from '../../src/runtime/index.js';
import {
  failureOf,
  FIRST_THREE as FIRST,
  hostileSuite,
  sse,
  SSE_HEADERS,
  type Answer,
} from './hostile.js';

const serve = hostileSuite();

/** A replay acknowledgment: floor 4 covers cursor 3, nothing to replay yet. */
const ACK = sse(null, { jsonrpc: '2.0', method: REPLAY_ACK_METHOD, params: { floor: 4 } });

const CALL = '{"jsonrpc":"2.0","id":1,"method":"x"}';
/** The call's result, the cursor's successor on a resume. */
const CALL_RESULT = { jsonrpc: '2.0', id: 1, result: {} };
// 1 s: long enough that a loaded 2-core machine still sees two delayed resumes of 80 ms each
// before it runs out (with 250 ms the first resume's headers alone could outlast it), and well
// inside the hostile servers' scripts (3 s of keepalives; 40 resumes).
const BUDGET_MS = 1_000;

function guarded() {
  const failures: StreamResumptionError[] = [];
  const decisions: string[] = [];
  const fetchFn = continuityGuard(fetch, {
    endCalls: 'error',
    proofTimeoutMs: BUDGET_MS,
    onFailure: (e) => failures.push(e),
    onDecision: (d) => decisions.push(d.outcome),
  });
  return { fetchFn, failures, decisions };
}

/** A server that answers the call with events 1-3 and every resume GET with `steps`. */
function serveResume(steps: Answer['steps']) {
  return serve((method) =>
    method === 'POST' ? FIRST : { status: 200, headers: SSE_HEADERS, steps },
  );
}

describe('rule 7.1: the guard ends a delayed episode when its budget runs out', () => {
  test('an acknowledged resume kept open by keepalives fails unproven; the body errors', async () => {
    // Keepalives every 50 ms for far longer than the budget, then a clean end.
    const keepalives: Answer['steps'] = [];
    for (let i = 0; i < 60; i++) keepalives.push({ wait: 50 }, { write: ': keepalive\n\n' });
    const h = await serveResume([{ write: ACK }, ...keepalives, { end: true }]);
    const { fetchFn, failures, decisions } = guarded();
    await (await fetchFn(h.url, { method: 'POST', body: CALL })).text();
    const res = await fetchFn(h.url, { method: 'GET', headers: { 'last-event-id': '3' } });
    const error = await failureOf(res.text());
    expect(decisions).toEqual(['delayed', 'resumption-failed']);
    expect(failures).toHaveLength(1);
    expect(error).toBeInstanceOf(StreamResumptionError);
    expect(error).toBe(failures[0]);
    expect(failures[0]!.code).toBe('unproven');
    expect(failures[0]!.message).toMatch(/delayed past the proof budget/);
    // Every later GET for the stream is refused with the same error.
    const again = await failureOf(
      fetchFn(h.url, { method: 'GET', headers: { 'last-event-id': '3' } }),
    );
    expect(again).toBe(failures[0]);
  });

  test('delayed reconnects of the same cursor share one budget', async () => {
    // Each resume is acknowledged, then ended after 40 ms: delayed, again and again.
    const h = await serveResume([{ write: ACK }, { wait: 40 }, { end: true }]);
    const { fetchFn, failures, decisions } = guarded();
    await (await fetchFn(h.url, { method: 'POST', body: CALL })).text();
    const errors: unknown[] = [];
    for (let i = 0; i < 40 && errors.length === 0; i++) {
      await fetchFn(h.url, { method: 'GET', headers: { 'last-event-id': '3' } })
        .then((r) => r.text())
        .catch((e: unknown) => errors.push(e));
      await new Promise((r) => setTimeout(r, 40));
    }
    expect(decisions.filter((d) => d === 'delayed').length).toBeGreaterThanOrEqual(2);
    // The budget runs out on a delayed stream (unproven), between two resumes (the next one is
    // failed before any answer: no-response), or, on a loaded machine, while a resume's headers
    // are on their way (no-response): one failure either way.
    expect(failures).toHaveLength(1);
    expect(['unproven', 'no-response']).toContain(failures[0]!.code);
    expect(errors[0]).toBe(failures[0]);
  });
});

describe('rule 5.1: the first block that is not a comment is the answer', () => {
  // A comment is not a block (rule 5.1, review S7): the acknowledgment is the answer's first
  // block whether a keepalive comes before it or after it, so its floor makes the resume
  // delayed and the successor proves it. (A guard that took the comment for the first block
  // would fail the first case as unproven-data: a false alarm.)
  test.each([
    ['after a keepalive', ': keepalive\n\n' + ACK],
    ['before a keepalive', ACK + ': keepalive\n\n'],
  ])('an acknowledgment %s: delayed, then resumed', async (_where, head) => {
    const h = await serveResume([{ write: head + sse(4, CALL_RESULT) }, { end: true }]);
    const { fetchFn, failures, decisions } = guarded();
    await (await fetchFn(h.url, { method: 'POST', body: CALL })).text();
    const res = await fetchFn(h.url, { method: 'GET', headers: { 'last-event-id': '3' } });
    await res.text();
    expect(decisions).toEqual(['delayed', 'resumed']);
    expect(failures).toEqual([]);
  });
});
