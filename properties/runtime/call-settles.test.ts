/**
 * The decision reaches the call: through what applications call (`Client.callTool` of SDK
 * 1.x and 2.x), a failed resumption rejects the call at once with the guard's error, which
 * names the outcome, the reason and the call; it never waits for the SDK's own request
 * timeout. A faithful replay resolves. The bare SDK clients, and a guard that only errors the
 * stream (`endCalls: 'error'`), are the mutants: each leaves the call waiting for its timeout.
 *
 * Settling times are printed, not asserted (these machines are noisy): the assertion that
 * holds the promptness is which error the call got. The guard's error can only arrive before
 * the SDK's request timeout (30 s here), and the server saw exactly one resume.
 */
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, test } from 'vitest';
import { serveFetch, type FetchHost } from '../../src/conformance/fetch-host.js';
import {
  continuityGuard,
  inspectGuard,
  RESUMPTION_ERROR_CODE,
  resumptionFailureOf,
  StreamResumptionError,
  type ContinuityGuardOptions,
} from '../../src/runtime/index.js';
import { callServer, type CallServer, type Resume } from './call-server.js';
import { callTool, type Settled } from './sdk-call.js';
import { SDK_KINDS, type SdkKind } from './sdk-clients.js';

const BUDGET_MS = 1_000;
/** The SDK's own request timeout in the guarded runs: far above anything the guard takes. */
const CALL_TIMEOUT_MS = 30_000;

const running: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) await r.close();
});

async function serve(...args: Parameters<typeof callServer>): Promise<CallServer> {
  const s = await callServer(...args);
  running.push(s);
  return s;
}

function guarded(failures: StreamResumptionError[], options: ContinuityGuardOptions = {}) {
  return continuityGuard(fetch, {
    proofTimeoutMs: BUDGET_MS,
    onFailure: (e) => failures.push(e),
    ...options,
  });
}

function report(what: string, s: CallServer, r: Settled) {
  const from = s.resumedAt() ?? s.brokeAt() ?? r.at;
  const error = r.error === undefined ? 'resolved' : (r.error as Error).message;
  console.log(
    `[call-settles] ${what}: settled ${r.at - from} ms after the resume answer: ${error}`,
  );
}

/** What each failing resume must end the call with. */
const FAILING: { resume: Exclude<Resume, 'faithful'>; outcome: string; code: string }[] = [
  { resume: '405', outcome: 'resumption-failed', code: 'bad-status' },
  { resume: '404', outcome: 'session-lost', code: 'session-gone' },
  { resume: 'skip', outcome: 'resumption-failed', code: 'skip' },
  // A 200 that then says nothing: answered in time, proven never (rule 7), whatever the load
  // (the 200 counts from its headers, not from when the budget's timer feeds it; it was
  // no-response or unproven depending on how early the timer fired by the wall clock).
  { resume: 'silent', outcome: 'resumption-failed', code: 'unproven' },
  // No status line at all: the proof budget bounds it (rule 1); the call learns within P.
  { resume: 'no-headers', outcome: 'resumption-failed', code: 'no-response' },
];

describe.each(SDK_KINDS)('SDK %s Client.callTool through the guard', (kind: SdkKind) => {
  test.each(FAILING)(
    'a resume answered $resume rejects the call at once: $outcome ($code), naming the call',
    async ({ resume, outcome, code }) => {
      const s = await serve({ resume });
      const failures: StreamResumptionError[] = [];
      const r = await callTool(kind, s.url, guarded(failures), { timeoutMs: CALL_TIMEOUT_MS });
      report(`${kind} ${resume}`, s, r);
      const failure = resumptionFailureOf(r.error);
      expect(failure, `the call got ${String(r.error)}`).toBeInstanceOf(StreamResumptionError);
      expect((r.error as { code: number }).code).toBe(RESUMPTION_ERROR_CODE);
      expect(failure!.outcome).toBe(outcome);
      expect(failure!.code).toBe(code);
      expect(failure!.call).toMatchObject({
        method: 'tools/call',
        cursor: '2',
        lastDelivered: '2',
      });
      expect((r.error as Error).message).toContain(outcome);
      // The application got what came before the gap, nothing after it.
      expect(r.notes).toEqual([1, 2]);
      // onFailure names the same call, with the request to re-issue.
      expect(failures).toHaveLength(1);
      expect(failures[0]!.requestId).toBe(failure!.requestId);
      expect(failures[0]!.request).toMatchObject({
        method: 'tools/call',
        params: { name: 'count' },
      });
      // No retry storm, no reconnect after the error: the server saw one resume.
      expect(s.seen.filter((x) => x.lastEventId !== undefined)).toHaveLength(1);
    },
  );

  test('a faithful replay resolves the call with every notification', async () => {
    const s = await serve({ resume: 'faithful' });
    const failures: StreamResumptionError[] = [];
    const r = await callTool(kind, s.url, guarded(failures), { timeoutMs: CALL_TIMEOUT_MS });
    expect(r.error).toBeUndefined();
    expect(r.notes).toEqual([1, 2, 3]);
    expect(failures).toEqual([]);
  });

  test.each(['destroy', 'end'] as const)(
    'a 2026-07-28 stream (no ids) that breaks by %s before its response rejects the call at once: no cursor, surface a partial result',
    async (ending) => {
      const s = await serve({ resume: 'faithful', era: '2026-07-28', ending });
      const failures: StreamResumptionError[] = [];
      const r = await callTool(kind, s.url, guarded(failures), { timeoutMs: CALL_TIMEOUT_MS });
      report(`${kind} 2026-07-28 ${ending}`, s, r);
      const failure = resumptionFailureOf(r.error);
      expect(failure, `the call got ${String(r.error)}`).not.toBeNull();
      expect(failure!).toMatchObject({ outcome: 'resumption-failed', code: 'no-cursor' });
      expect(failure!.call).toMatchObject({ method: 'tools/call', cursor: null });
      // A tool call may not run twice: the words never tell the application to re-issue it.
      expect(failure!.message).toContain('surface a partial result');
      expect(r.notes).toEqual([1, 2]);
      expect(s.seen.filter((x) => x.method === 'GET' && x.lastEventId)).toEqual([]);
    },
  );
});

describe('the mutants: a call left waiting for its own timeout', () => {
  // Short timeouts: what is asserted is that these calls end by the SDK's timeout, not the guard.
  test.each(SDK_KINDS)(
    'SDK %s: on each failing resume, the bare client and a guard that only errors the stream both wait',
    async (kind) => {
      const runs = FAILING.flatMap(({ resume }) =>
        [fetch, guarded([], { endCalls: 'error' })].map(async (fetchFn) => {
          const s = await serve({ resume });
          const r = await callTool(kind, s.url, fetchFn, { timeoutMs: 1_200 });
          return { resume, error: r.error };
        }),
      );
      for (const { resume, error } of await Promise.all(runs)) {
        expect(resumptionFailureOf(error), resume).toBeNull();
        expect(String((error as Error).message), resume).toMatch(/timed out/i);
      }
    },
    20_000,
  );
});

/** A fetch that cuts the response of a `tools/call` after its first chunk (a network fault). */
function cutsToolCalls(): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    const body = response.body;
    if (!body || !String(init?.body ?? '').includes('"method":"tools/call"')) return response;
    const reader = body.getReader();
    let chunks = 0;
    const cut = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (chunks++ === 1) {
          await reader.cancel();
          return controller.error(new TypeError('terminated'));
        }
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      },
    });
    return new Response(cut, { status: response.status, headers: response.headers });
  };
}

describe('MCP 2026-07-28 with the SDK 2.x server', () => {
  let host: FetchHost | undefined;
  afterEach(async () => {
    await host?.close();
    host = undefined;
  });

  async function modernServer(): Promise<FetchHost> {
    const handler = createMcpHandler(
      () => {
        const server = new McpServer(
          { name: 'modern', version: '1.0.0' },
          { capabilities: { logging: {} } },
        );
        server.registerTool('count', { description: 'one note, then a result' }, async (ctx) => {
          await ctx.mcpReq.notify({
            method: 'notifications/message',
            params: { level: 'info', data: 1 },
          });
          await new Promise((r) => setTimeout(r, 200));
          return { content: [{ type: 'text', text: 'done' }] };
        });
        return server;
      },
      { responseMode: 'sse' },
    );
    host = await serveFetch((request) => handler.fetch(request));
    return host;
  }

  test('a tool call whose response stream breaks rejects at once (the bare client waits for its timeout)', async () => {
    const { url } = await modernServer();
    const failures: StreamResumptionError[] = [];
    const guardedCut = continuityGuard(cutsToolCalls(), { onFailure: (e) => failures.push(e) });
    const t0 = Date.now();
    const r = await callTool('v2', url, guardedCut, {
      timeoutMs: CALL_TIMEOUT_MS,
      version: '2026-07-28',
    });
    console.log(`[call-settles] v2 on 2026-07-28, broken stream: settled in ${r.at - t0} ms`);
    expect(resumptionFailureOf(r.error)).toMatchObject({
      outcome: 'resumption-failed',
      code: 'no-cursor',
    });
    expect(failures.map((f) => f.method)).toEqual(['tools/call']);
    // The mutant: the bare client on the same fault.
    const bare = await callTool('v2', url, cutsToolCalls(), {
      timeoutMs: 1_500,
      version: '2026-07-28',
    });
    expect(String((bare.error as Error).message)).toMatch(/timed out/i);
  });

  test('an unbroken call resolves through the guard: an id-less response completes its stream', async () => {
    const { url } = await modernServer();
    const failures: StreamResumptionError[] = [];
    const f = continuityGuard(fetch, { onFailure: (e) => failures.push(e) });
    const r = await callTool('v2', url, f, { timeoutMs: CALL_TIMEOUT_MS, version: '2026-07-28' });
    expect(r.error).toBeUndefined();
    expect(r.notes).toEqual([1]);
    // server/discover and tools/call each got their response on a stream without ids.
    expect(failures).toEqual([]);
    expect(inspectGuard(f)).toEqual({ streams: 0, failed: 0, owed: 0, pending: 0 });
  });
});
