/**
 * A direct client: what an application that calls the guarded `fetch` itself does. It keeps
 * its cursor across streams as an EventSource does (so it polls with the same cursor, unlike
 * the SDK clients), reconnects only once it holds one, follows a plan of reconnects with and
 * without sending it, and passes no
 * `redirect` option (plain fetch follows redirects: the guard must not).
 */
import { createParser } from 'eventsource-parser';

/** What the application received. */
export interface DirectRun {
  messages: Record<string, unknown>[];
  /** The `retry:` values the application's parser read. */
  retries: number[];
  errors: unknown[];
}

/** Reads one guarded body into `run`, for at most `deadlineMs`; returns the last id seen. */
async function read(
  res: Response,
  run: DirectRun,
  cursor: string | null,
  deadlineMs: number,
): Promise<string | null> {
  let last = cursor;
  const parser = createParser({
    onEvent: (e) => {
      if (e.id) last = e.id;
      if (e.data) run.messages.push(JSON.parse(e.data) as Record<string, unknown>);
    },
    onRetry: (ms) => run.retries.push(ms),
  });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const deadline = setTimeout(() => void reader.cancel().catch(() => {}), deadlineMs);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
    }
  } catch (e) {
    run.errors.push(e);
  } finally {
    clearTimeout(deadline);
  }
  return last;
}

/** The call got its response: its result, or an error (the guard's, when it failed the stream). */
const done = (run: DirectRun) =>
  run.messages.some((m) => m.id === 1 && ('result' in m || 'error' in m));

/**
 * One call: the POST, then up to `plan.length` reconnects while the result is missing; the
 * i-th sends the cursor when `plan[i]`.
 */
export async function directCall(
  url: string,
  fetchFn: typeof fetch,
  plan: readonly boolean[],
  deadlineMs: number,
): Promise<DirectRun> {
  const run: DirectRun = { messages: [], retries: [], errors: [] };
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: {} });
  let cursor: string | null = null;
  try {
    const res = await fetchFn(url, {
      method: 'POST',
      body,
      headers: { accept: 'text/event-stream' },
    });
    cursor = await read(res, run, cursor, deadlineMs);
  } catch (e) {
    run.errors.push(e);
    return run;
  }
  for (const sendCursor of plan) {
    // Without an id there is nothing to resume (the SDK clients do not reconnect either): a
    // GET then would open a new stream, which owes the call nothing.
    if (done(run) || cursor === null) break;
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    if (sendCursor && cursor !== null) headers['last-event-id'] = cursor;
    try {
      const res = await fetchFn(url, { method: 'GET', headers });
      if (res.status !== 200 || !res.body) {
        await res.body?.cancel();
        continue;
      }
      cursor = await read(res, run, cursor, deadlineMs);
    } catch (e) {
      run.errors.push(e);
    }
  }
  return run;
}
