/**
 * The words of the guard's errors (review I6, issue 37 "tool annotations decide re-issue"):
 * they say "re-issue" only for a request that may run twice (MCP's reads), and "surface a
 * partial result" for a tool call, whose tool may have done its work; and a refused resume
 * carries what the server said with its refusal, so that an evicted cursor is told from a
 * crashed server. Network-free (a scripted fetch).
 */
import { describe, expect, test } from 'vitest';
import { adviceFor } from '../../src/runtime/guard-core.js';
import { continuityGuard, type StreamResumptionError } from '../../src/runtime/index.js';
import { ev, readAll, scriptedFetch, sseResponse } from './scripted-fetch.js';

const URL_ = 'http://127.0.0.1:9/mcp';

function request(method: string): string {
  return JSON.stringify({ jsonrpc: '2.0', id: 4, method, params: {} });
}

/** The reason of the failure of a request whose stream ends with no id and no response. */
async function cursorlessEnd(method: string): Promise<string> {
  const failures: StreamResumptionError[] = [];
  const f = continuityGuard(scriptedFetch(() => sseResponse('data: {"n":1}\n\n')).fetch, {
    onFailure: (e) => failures.push(e),
  });
  await readAll(await f(URL_, { method: 'POST', body: request(method) }));
  expect(failures).toHaveLength(1);
  return failures[0]!.message;
}

describe('the advice in the words', () => {
  test('a tool call: surface a partial result, never a bare "re-issue the call"', async () => {
    const words = await cursorlessEnd('tools/call');
    expect(words).toMatch(/; surface a partial result \(re-issue only a call that may run twice/);
    expect(words).not.toMatch(/re-issue the call as a new request/);
  });

  test('a read (resources/read, tools/list): re-issue it', async () => {
    for (const method of ['resources/read', 'tools/list'])
      expect(await cursorlessEnd(method)).toMatch(/; re-issue the request as a new one/);
  });
});

describe('a refused resume says what the server said', () => {
  test.each([
    {
      status: 500,
      body: '{"jsonrpc":"2.0","error":{"code":-32000,"message":"Error replaying events"},"id":null}',
      said: '"Error replaying events"',
    },
    {
      status: 409,
      body: '{"jsonrpc":"2.0","error":{"code":-32000,"message":"Conflict: Stream already has an active connection"},"id":null}',
      said: '"Conflict: Stream already has an active connection"',
    },
    {
      status: 503,
      body: 'down for\u0007 maintenance\nsecond line',
      said: '"down for maintenance"',
    },
  ])('$status: the reason ends with the server’s words', async ({ status, body, said }) => {
    const failures: StreamResumptionError[] = [];
    const f = continuityGuard(
      scriptedFetch((_s, n) => (n === 0 ? sseResponse(ev(1)) : new Response(body, { status })))
        .fetch,
      { onFailure: (e) => failures.push(e), endCalls: 'error' },
    );
    await readAll(await f(URL_, { method: 'POST', body: request('tools/call') }));
    await f(URL_, { method: 'GET', headers: { 'last-event-id': '1' } }).catch(() => {});
    expect(failures).toHaveLength(1);
    expect(failures[0]!.message).toBe(
      `unexpected reconnect status=${status}; the server said: ${said}`,
    );
  });

  test('an empty refusal adds nothing', async () => {
    const failures: StreamResumptionError[] = [];
    const f = continuityGuard(
      scriptedFetch((_s, n) => (n === 0 ? sseResponse(ev(1)) : new Response(null, { status: 405 })))
        .fetch,
      { onFailure: (e) => failures.push(e), endCalls: 'error' },
    );
    await readAll(await f(URL_, { method: 'POST', body: request('tools/call') }));
    await f(URL_, { method: 'GET', headers: { 'last-event-id': '1' } }).catch(() => {});
    expect(failures[0]!.message).toBe('unexpected reconnect status=405');
  });
});

describe('adviceFor, method by method', () => {
  // (MCP's reads written out here, not imported from guard-core.ts: a test that read the
  // guard's own list would follow any change to it, a wrong one too.)
  const READ = 're-issue the request as a new one (a read may run twice)';
  const PARTIAL =
    'surface a partial result (re-issue only a call that may run twice: see reissueOnce)';
  test.each([
    'tools/list',
    'resources/list',
    'resources/templates/list',
    'resources/read',
    'prompts/list',
    'prompts/get',
    'completion/complete',
    'ping',
  ])('%s is a read: re-issue it', (method) => {
    expect(adviceFor(method)).toBe(READ);
  });

  test.each(['tools/call', 'sampling/createMessage', 'Tools/list', '', 5, undefined, null])(
    '%s is no read: surface a partial result',
    (method) => {
      expect(adviceFor(method)).toBe(PARTIAL);
    },
  );
});
