/**
 * The seven guard bugs of issue 16, each as hostile loopback servers against the real SDK
 * client transports (1.x and 2.x) wrapped by `continuityGuard`, or against the guard alone
 * where the SDK hides the bug (it sends `redirect: 'manual'` itself). Each test failed on the
 * guard before the fix. No timing assertions: bounds show by the failure code they produce.
 */
import { createParser } from 'eventsource-parser';
import { afterEach, describe, expect, test } from 'vitest';
import {
  continuityGuard,
  GuardCapacityError,
  StreamResumptionError,
  type ContinuityGuardOptions,
} from '../../src/runtime/index.js';
import {
  failureOf,
  hostile,
  note,
  RESULT,
  sse,
  SSE_HEADERS,
  type Answer,
  type Hostile,
} from './hostile.js';
import { callThrough, hasResult, notesOf, SDK_KINDS } from './sdk-clients.js';

const running: Hostile[] = [];
afterEach(async () => {
  for (const h of running.splice(0)) await h.close();
});

async function serve(answer: Parameters<typeof hostile>[0]): Promise<Hostile> {
  const h = await hostile(answer);
  running.push(h);
  return h;
}

/** The first stream: ids 1..3, then the server ends it before the result. */
const FIRST: Answer = {
  status: 200,
  headers: SSE_HEADERS,
  steps: [{ write: sse(1, note(1)) + sse(2, note(2)) + sse(3, note(3)) }, { end: true }],
};

/** A resume that skips 4..8: event 9 and the result. */
const SKIPPING = sse(9, note(9)) + sse(10, RESULT);

/** A guard whose failures are collected; small bounds so that tests stay short. */
function guarded(options: ContinuityGuardOptions = {}) {
  const failures: StreamResumptionError[] = [];
  const fetchFn = continuityGuard(fetch, {
    endCalls: 'error',
    proofTimeoutMs: 1_000,
    minRetryMs: 10,
    maxRetryMs: 200,
    onFailure: (e) => failures.push(e),
    ...options,
  });
  return { fetchFn, failures };
}

describe.each(SDK_KINDS)('bugs 1-4 through the SDK %s client transport', (kind) => {
  test.each([['text/html'], ['text/plain'], ['application/json'], [null]])(
    'bug 1: a 200 resume with content type %s carrying a skipping SSE body proves nothing',
    async (type) => {
      const h = await serve((method) =>
        method === 'POST'
          ? FIRST
          : {
              status: 200,
              headers: type === null ? {} : { 'content-type': type },
              steps: [{ write: SKIPPING }, { end: true }],
            },
      );
      const { fetchFn, failures } = guarded();
      const got = await callThrough(kind, h.url, fetchFn);
      expect(notesOf(got)).toEqual([1, 2, 3]);
      expect(hasResult(got)).toBe(false);
      expect(failures[0]?.code).toBe('unproven');
    },
  );

  test('bug 2: after a refused resume, a retry without Last-Event-ID is refused too (cursor-dropped)', async () => {
    const h = await serve((method) =>
      method === 'POST'
        ? FIRST
        : { status: 200, headers: SSE_HEADERS, steps: [{ write: SKIPPING }, { end: true }] },
    );
    const { fetchFn, failures } = guarded();
    const got = await callThrough(kind, h.url, fetchFn);
    expect(notesOf(got)).toEqual([1, 2, 3]);
    expect(hasResult(got)).toBe(false);
    expect(failures[0]?.code).toBe('skip');
    // The SDK did retry without a cursor, and that retry was refused with the same error.
    expect(h.seen.filter((s) => s.method === 'GET' && s.lastEventId === undefined)).toEqual([]);
    expect(failures.every((f) => f === failures[0])).toBe(true);
  });

  test.each([
    ['in one chunk', [{ write: ': keepalive\n\n' + SKIPPING }]],
    ['split', [{ write: ': keepalive\n\n' }, { wait: 30 }, { write: SKIPPING }]],
    [
      'split inside the comment',
      [{ write: ': keep' }, { wait: 30 }, { write: 'alive\n\n' + SKIPPING }],
    ],
  ])(
    'bug 3: a keepalive before a skipping first event (%s) is refused (skip)',
    async (_n, steps) => {
      const h = await serve((method) =>
        method === 'POST'
          ? FIRST
          : {
              status: 200,
              headers: SSE_HEADERS,
              steps: [...(steps as Answer['steps']), { end: true }],
            },
      );
      const { fetchFn, failures } = guarded();
      const got = await callThrough(kind, h.url, fetchFn);
      expect(notesOf(got)).toEqual([1, 2, 3]);
      expect(hasResult(got)).toBe(false);
      expect(failures[0]?.code).toBe('skip');
    },
  );

  test('bug 4: a reconnect later than the budget after the POST, replaying 50 ms behind its 200, is judged from the reconnect', async () => {
    const h = await serve((method) =>
      method === 'POST'
        ? {
            status: 200,
            headers: SSE_HEADERS,
            steps: [
              { write: sse(1, note(1)) + sse(2, note(2)) + sse(3, note(3)) },
              { wait: 2_000 },
              { end: true },
            ],
          }
        : {
            status: 200,
            headers: SSE_HEADERS,
            steps: [{ wait: 50 }, { write: sse(4, note(4)) + sse(5, RESULT) }, { end: true }],
          },
    );
    // The reconnect comes 2 s after the POST, past a 1 s budget counted from the POST; the
    // replay comes 50 ms behind its 200, well inside one counted from the reconnect. (600 ms and
    // 300 ms left 250 ms for the replay's trip, which a loaded 2-core machine can spend.)
    const { fetchFn, failures } = guarded({ proofTimeoutMs: 1_000 });
    const got = await callThrough(kind, h.url, fetchFn, { quietMs: 4_000 });
    expect(failures).toEqual([]);
    expect(notesOf(got)).toEqual([1, 2, 3, 4]);
    expect(hasResult(got)).toBe(true);
  });
});

/** The scripted call's POST body. */
const CALL = '{"jsonrpc":"2.0","id":1,"method":"x"}';

/** POST then GET with `cursor` through the guard alone, as an application calling fetch does. */
async function resumeAlone(url: string, fetchFn: typeof fetch, cursor = '3'): Promise<string> {
  await (
    await fetchFn(url, { method: 'POST', body: '{"jsonrpc":"2.0","id":1,"method":"x"}' })
  ).text();
  const res = await fetchFn(url, { method: 'GET', headers: { 'last-event-id': cursor } });
  return res.text();
}

describe('bugs 4-7 at the guard', () => {
  test('bug 4: empty polls spaced under the budget fail unproven when the episode budget runs out; every later poll is refused', async () => {
    // The SDK clients poll without Last-Event-ID (an empty stream leaves them no id: rule 0),
    // so the polls are made here as a client that keeps its cursor makes them.
    const h = await serve((method) =>
      method === 'POST'
        ? FIRST
        : { status: 200, headers: SSE_HEADERS, steps: [{ wait: 40 }, { end: true }] },
    );
    // A 1 s budget: three polls of about 80 ms each fit in it on a loaded 2-core machine too
    // (250 ms could be spent on the first poll's headers); 40 polls outlast it on any machine.
    const { fetchFn, failures } = guarded({ proofTimeoutMs: 1_000 });
    await (await fetchFn(h.url, { method: 'POST', body: CALL })).text();
    const errors: unknown[] = [];
    for (let i = 0; i < 40 && errors.length === 0; i++) {
      await fetchFn(h.url, { method: 'GET', headers: { 'last-event-id': '3' } })
        .then((r) => r.text())
        .catch((e: unknown) => errors.push(e));
      await new Promise((r) => setTimeout(r, 40));
    }
    expect(h.seen.filter((s) => s.lastEventId === '3').length).toBeGreaterThanOrEqual(3);
    // The budget runs out between polls or on one (unproven), or, on a loaded machine, while a
    // poll's headers are still on their way (no-response): one failure either way.
    expect(failures).toHaveLength(1);
    expect(['unproven', 'no-response']).toContain(failures[0]!.code);
    expect(errors[0]).toBe(failures[0]);
    const again = await failureOf(
      fetchFn(h.url, { method: 'GET', headers: { 'last-event-id': '3' } }),
    );
    expect(again).toBe(failures[0]);
  });

  test('bug 5: a resume answered 307 to another host is never followed into a proof (rule 3)', async () => {
    const elsewhere = await serve(() => ({
      status: 200,
      headers: SSE_HEADERS,
      steps: [{ write: sse(4, note(4)) + sse(5, RESULT) }, { end: true }],
    }));
    const h = await serve((method) =>
      method === 'POST'
        ? FIRST
        : { status: 307, headers: { location: elsewhere.url }, steps: [{ end: true }] },
    );
    const { fetchFn, failures } = guarded();
    const e = await failureOf(resumeAlone(h.url, fetchFn));
    expect(e).toBeInstanceOf(StreamResumptionError);
    expect((e as StreamResumptionError).code).toBe('bad-status');
    expect(failures.map((f) => f.code)).toEqual(['bad-status']);
    expect(elsewhere.seen).toEqual([]);
  });

  test('bug 6: retry values reach the client clamped to [minRetryMs, maxRetryMs]', async () => {
    const h = await serve(() => ({
      status: 200,
      headers: SSE_HEADERS,
      steps: [
        { write: 'retry: 0\n\nretry: -5\n\nretry: 1000000000000\n\n' },
        { write: 'retry: 10000000000000000000000000\n\nretry: 150\n\n' + sse(1, RESULT) },
        { end: true },
      ],
    }));
    const { fetchFn } = guarded({ minRetryMs: 100, maxRetryMs: 30_000 });
    const body = await (await fetchFn(h.url, { method: 'POST', body: '{"id":1}' })).text();
    const retries: number[] = [];
    const parser = createParser({ onEvent: () => {}, onRetry: (ms) => retries.push(ms) });
    parser.feed(body);
    // -5 is no retry value at all (not digits): the parser drops it, and so does the client's.
    expect(retries).toEqual([100, 30_000, 30_000, 150]);
  });

  test("bug 6: a first stream's headers are waited for at most firstHeadersTimeoutMs", async () => {
    const silent = await serve(() => ({ status: 0, steps: [] }));
    const never = (async () => {
      await new Promise((r) => setTimeout(r, 15_000));
      return 'still waiting';
    })();
    const { fetchFn } = guarded({ firstHeadersTimeoutMs: 200 });
    const outcome = await Promise.race([
      fetchFn(silent.url, { method: 'POST', body: '{"id":1}' }).then(
        () => 'answered',
        (e: unknown) => (e instanceof Error ? e.message : String(e)),
      ),
      never,
    ]);
    expect(outcome).toMatch(/no response headers in 200 ms/);
  }, 30_000);

  test('bug 7: past maxStreams a new stream is refused with a clear error, never dropped; completed streams are freed', async () => {
    let held = true;
    const h = await serve(() => ({
      status: 200,
      headers: SSE_HEADERS,
      steps: held ? [{ write: sse(1, note(1)) }] : [{ write: sse(1, RESULT) }, { end: true }],
    }));
    const { fetchFn } = guarded({ maxStreams: 3 });
    const post = () =>
      fetchFn(h.url, { method: 'POST', body: '{"jsonrpc":"2.0","id":1,"method":"x"}' });
    const open = [await post(), await post(), await post()];
    const e = await failureOf(post());
    expect(e).toBeInstanceOf(GuardCapacityError);
    expect((e as Error).message).toMatch(/maxStreams \(3\)/);
    for (const r of open) await r.body?.cancel();
    held = false;
    for (let i = 0; i < 20; i++) expect(await (await post()).text()).toContain('"result"');
  });

  test('bug 7: a stream interrupted, resumed and completed is freed', async () => {
    const h = await serve((method) =>
      method === 'POST'
        ? FIRST
        : { status: 200, headers: SSE_HEADERS, steps: [{ write: sse(4, RESULT) }, { end: true }] },
    );
    const { fetchFn } = guarded({ maxStreams: 1 });
    for (let i = 0; i < 5; i++) expect(await resumeAlone(h.url, fetchFn)).toContain('"result"');
  });
});
