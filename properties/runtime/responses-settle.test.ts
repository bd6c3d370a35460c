/**
 * Responses and settlement through `Client.callTool` (SDK 1.32.2 and 2.4.0) against an honest
 * SDK server with the project's own store (issue 37, R3-3 and R3-4):
 * - a tool's JSON-RPC error completes its call as a result does: no `onFailure`, no stream held
 *   (SDK 1.x reconnects after a stream whose last message was an error response, with that
 *   event's id: the guard answers that reconnect itself);
 * - a call the guard ended frees its stream once the settlement is handed on: ended calls that
 *   are never re-issued do not fill the guard.
 * Every wait is for an event (a request seen), bounded; nothing is timed.
 */
import { afterEach, describe, expect, test } from 'vitest';
import {
  continuityGuard,
  inspectGuard,
  resumptionFailureOf,
  type StreamResumptionError,
} from '../../src/runtime/index.js';
import { connectSdk, until } from './sdk-session.js';
import { SDK_KINDS, type SdkKind } from './sdk-clients.js';
import { storeServer, type StoreServer } from './sdk-store-server.js';
import { ev, readAll, scriptedFetch, sseResponse } from './scripted-fetch.js';

const running: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) await r.close();
});

async function serve(...args: Parameters<typeof storeServer>): Promise<StoreServer> {
  const s = await storeServer(...args);
  running.push(s);
  return s;
}

describe.each(SDK_KINDS)('SDK %s: a tool error completes its call (R3-3)', (kind: SdkKind) => {
  test('errors from an honest server: no onFailure, nothing held, no request refused at maxStreams', async () => {
    const s = await serve([{ name: 'broken', error: -32602 }]);
    const failures: StreamResumptionError[] = [];
    const guard = continuityGuard(fetch, {
      onFailure: (e) => failures.push(e),
      maxStreams: 3,
      proofTimeoutMs: 60_000,
    });
    const client = await connectSdk(kind, s.url, guard);
    running.push(client);
    const CALLS = 6;
    for (let i = 0; i < CALLS; i++) {
      const error = await client.call('broken').then(
        () => null,
        (e: unknown) => e,
      );
      expect((error as { code?: unknown }).code, String(error)).toBe(-32602);
      expect(resumptionFailureOf(error)).toBeNull();
      // SDK 1.x reconnects after the error's stream with the error's id; wait for that GET to
      // be answered before the next call (2.x does not reconnect: its count stays 0).
      if (kind === 'v1') await until(() => client.resumesAnswered() === i + 1, 'the SDK reconnect');
    }
    expect(failures.map((f) => f.message)).toEqual([]);
    expect(inspectGuard(guard)).toMatchObject({ failed: 0, owed: 0, pending: 0 });
    // (At most the session's standalone stream is followed.)
    expect(inspectGuard(guard)!.streams).toBeLessThanOrEqual(1);
    // The guard answered the reconnects itself: the server never saw a resume.
    expect(s.seen.filter((r) => r.lastEventId !== undefined)).toEqual([]);
  });
});

describe('an ended call frees its stream after its settlement (R3-4)', () => {
  test('ended calls never re-issued: counted, the guard holds none and refuses nothing', async () => {
    // Every call's stream delivers id 1 and ends; every resume is answered 405 (a
    // 2026-07-28 server): the guard ends each call with its settlement.
    const scripted = scriptedFetch((sent) =>
      sent.method === 'POST' ? sseResponse(ev(1)) : new Response(null, { status: 405 }),
    );
    const failures: StreamResumptionError[] = [];
    const MAX = 4;
    const f = continuityGuard(scripted.fetch, {
      onFailure: (e) => failures.push(e),
      maxStreams: MAX,
    });
    const ENDED = 50;
    for (let i = 0; i < ENDED; i++) {
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: i,
        method: 'tools/call',
        params: { name: 'send-mail', arguments: { n: i } },
      });
      await readAll(await f('http://127.0.0.1:9/mcp', { method: 'POST', body }));
      const settled = await readAll(
        await f('http://127.0.0.1:9/mcp', { method: 'GET', headers: { 'last-event-id': '1' } }),
      );
      expect(settled.text).toContain('"code":-32030');
      expect(inspectGuard(f), `after ${i + 1} ended calls`).toEqual({
        streams: 0,
        failed: 0,
        owed: 0,
        pending: 0,
      });
    }
    expect(failures).toHaveLength(ENDED);
  });
});

describe("the marker after a call's error response", () => {
  const error = (id: number) =>
    `id: 7\ndata: ${JSON.stringify({ jsonrpc: '2.0', id, error: { code: -1, message: 'no' } })}\n\n`;

  test("a request's stream: an id-only event with the guard's own id follows the error, and its reconnect is the guard's", async () => {
    const scripted = scriptedFetch(() => sseResponse(error(3)));
    const f = continuityGuard(scripted.fetch);
    const body = JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: {} });
    const { text } = await readAll(await f('http://127.0.0.1:9/mcp', { method: 'POST', body }));
    const m = /^id: 7\ndata: .*\n\nid: (mcpr-call-ended-[\w-]{12}-\d+)\ndata: \n\n$/.exec(text);
    expect(m, text).not.toBeNull();
    const again = await f('http://127.0.0.1:9/mcp', {
      method: 'GET',
      headers: { 'last-event-id': m![1]! },
    });
    expect(again.status).toBe(405);
    expect(scripted.sent).toHaveLength(1);
  });

  test('the standalone stream gets no marker (a 405 to its reconnect would end it for good)', async () => {
    const f = continuityGuard(scriptedFetch(() => sseResponse(error(3))).fetch);
    const { text } = await readAll(await f('http://127.0.0.1:9/mcp', { method: 'GET' }));
    expect(text).toBe(error(3));
  });
});
