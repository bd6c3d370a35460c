/**
 * `reissueOnce` as an application uses it, through `Client.callTool` of SDK 1.32.2 and 2.4.0
 * (issue 37, R3-9 and "tool annotations decide re-issue"; issue 38, "reissueOnce with
 * idempotent: false and a newSession"):
 * - only the guard's own failure is re-issued: a server's forged -32030 `session-lost` passes
 *   through as the tool's error, no new session is opened and the call runs once;
 * - `idempotent` takes only a boolean (`'false'` is a clear error before the call runs);
 * - left out, the tool's annotations from `tools/list` decide (`readOnlyHint`,
 *   `idempotentHint`; a tool without annotations may not run twice);
 * - a call that may not run twice and fails `session-lost` surfaces its StreamResumptionError
 *   untouched, without closing the client or reconnecting first (the mutant
 *   `reissueReconnectingFirst` does, and is killed: the application gets a connection error);
 * - `afterDelivery: 'surface'` does not re-issue a call that had delivered events.
 */
import { afterEach, describe, expect, test } from 'vitest';
import {
  continuityGuard,
  listedTool,
  mayRunTwice,
  reissueOnce,
  RESUMPTION_ERROR_CODE,
  StreamResumptionError,
  type ReissueOptions,
} from '../../src/runtime/index.js';
import { reissueReconnectingFirst } from '../../src/runtime-mutants/reissue-mutants.js';
import { callServer, type CallScenario } from './call-server.js';
import { SDK_KINDS, type SdkKind } from './sdk-clients.js';
import { connectSdk, type SdkSession } from './sdk-session.js';
import { storeServer } from './sdk-store-server.js';

const running: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const r of running.splice(0).reverse()) await r.close();
});

/** A guarded client of `kind` connected to a loopback call server; `reconnect` makes a new one. */
async function app(kind: SdkKind, scenario: CallScenario) {
  const s = await callServer(scenario);
  running.push(s);
  const guard = continuityGuard(fetch, { proofTimeoutMs: 2_000 });
  const connect = async () => {
    const c = await connectSdk(kind, s.url, guard);
    running.push(c);
    return c;
  };
  const calls = () => s.seen.filter((x) => x.rpc === 'tools/call').length;
  const inits = () => s.seen.filter((x) => x.rpc === 'initialize').length;
  return { s, connect, calls, inits };
}

/** What `p` rejected with (`undefined`: it resolved). */
async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => undefined,
    (e: unknown) => e,
  );
}

describe('reissueOnce checks its options before the call runs', () => {
  test("idempotent takes true or false only: 'false', 0 and null are clear errors", async () => {
    let runs = 0;
    const call = async () => void runs++;
    for (const bad of ['false', 'true', 0, 1, null]) {
      const e = await rejection(
        reissueOnce(call, { idempotent: bad } as unknown as ReissueOptions),
      );
      expect(e).toBeInstanceOf(TypeError);
      expect((e as Error).message).toMatch(
        /^reissueOnce: options\.idempotent must be true or false/,
      );
    }
    const neither = await rejection(reissueOnce(call, {}));
    expect((neither as Error).message).toMatch(/say whether the call may run twice/);
    const when = await rejection(
      reissueOnce(call, { idempotent: true, afterDelivery: 'never' } as unknown as ReissueOptions),
    );
    expect((when as Error).message).toMatch(/afterDelivery must be 'reissue' or 'surface'/);
    expect(runs).toBe(0);
  });

  test('mayRunTwice: readOnlyHint or idempotentHint true, nothing else', () => {
    expect(mayRunTwice({ annotations: { readOnlyHint: true } })).toBe(true);
    expect(mayRunTwice({ annotations: { idempotentHint: true } })).toBe(true);
    expect(mayRunTwice({ annotations: { readOnlyHint: false, idempotentHint: false } })).toBe(
      false,
    );
    expect(mayRunTwice({ annotations: { idempotentHint: 'true' } })).toBe(false);
    expect(mayRunTwice({ annotations: {} })).toBe(false);
    expect(mayRunTwice({ annotations: null })).toBe(false);
    expect(mayRunTwice({})).toBe(false);
    expect(mayRunTwice(undefined)).toBe(false);
  });
});

describe.each(SDK_KINDS)('SDK %s: reissueOnce through Client.callTool', (kind: SdkKind) => {
  test("R3-9: a server's forged -32030 session-lost is the tool's error: no new session, no re-run", async () => {
    const forged = {
      outcome: 'session-lost',
      code: 'session-gone',
      reason: 'the session is gone',
      stream: null,
      cursor: '2',
      lastDelivered: '2',
      requestId: 1,
      method: 'tools/call',
    };
    const s = await storeServer([{ name: 'pay', error: RESUMPTION_ERROR_CODE, errorData: forged }]);
    running.push(s);
    const client = await connectSdk(kind, s.url, continuityGuard(fetch));
    running.push(client);
    let newSessions = 0;
    const e = await rejection(
      reissueOnce(() => client.call('pay'), {
        idempotent: true,
        newSession: async () => void newSessions++,
      }),
    );
    expect(e).not.toBeInstanceOf(StreamResumptionError);
    expect((e as { code?: unknown }).code).toBe(RESUMPTION_ERROR_CODE);
    expect(newSessions).toBe(0);
    expect(s.runs.get('pay')).toBe(1);
  });

  test.each([
    { annotations: { readOnlyHint: true }, reissued: true },
    { annotations: { idempotentHint: true }, reissued: true },
    { annotations: { idempotentHint: false }, reissued: false },
    { annotations: undefined, reissued: false },
  ])(
    'annotations $annotations from tools/list decide: re-issued $reissued',
    async ({ annotations, reissued }) => {
      const a = await app(kind, { resume: 'skip', again: 'answer', annotations });
      const client = await a.connect();
      const tool = await listedTool(client, 'count');
      expect(tool?.name).toBe('count');
      const e = await rejection(reissueOnce(() => client.call('count'), { tool }));
      if (reissued) {
        expect(e).toBeUndefined();
        expect(a.calls()).toBe(2);
      } else {
        expect(e).toBeInstanceOf(StreamResumptionError);
        expect(e).toMatchObject({ outcome: 'resumption-failed', code: 'skip' });
        expect(a.calls()).toBe(1);
      }
    },
  );

  test("afterDelivery: 'surface' does not re-issue a call that had delivered events", async () => {
    const a = await app(kind, { resume: 'skip', again: 'answer' });
    const client = await a.connect();
    const e = await rejection(
      reissueOnce(() => client.call('count'), { idempotent: true, afterDelivery: 'surface' }),
    );
    expect(e).toMatchObject({ code: 'skip', call: { lastDelivered: '2' } });
    expect(a.calls()).toBe(1);
  });

  /**
   * Issue 38: a call that may not run twice fails session-lost while the server goes down.
   * `reissue` is reissueOnce or its mutant; `newSession` closes the client and connects a new
   * one, as the docs' recipe does. What the application gets back.
   */
  async function sessionLostNotIdempotent(reissue: typeof reissueOnce) {
    const a = await app(kind, { resume: '404' });
    let client: SdkSession = await a.connect();
    let newSessions = 0;
    const e = await rejection(
      reissue(
        async () => {
          try {
            return await client.call('count');
          } finally {
            await a.s.close(); // the server goes down right after the failure
          }
        },
        {
          idempotent: false,
          newSession: async () => {
            newSessions++;
            await client.close();
            client = await a.connect();
          },
        },
      ),
    );
    return { e, newSessions, calls: a.calls() };
  }

  test('issue 38: idempotent false + newSession: session-lost surfaces untouched, no reconnect', async () => {
    const { e, newSessions, calls } = await sessionLostNotIdempotent(reissueOnce);
    expect(e).toBeInstanceOf(StreamResumptionError);
    expect(e).toMatchObject({
      outcome: 'session-lost',
      code: 'session-gone',
      call: { method: 'tools/call', cursor: '2', lastDelivered: '2' },
    });
    expect(newSessions).toBe(0);
    expect(calls).toBe(1);
  });

  test('issue 38: the mutant that reconnects first is killed (the application gets a connection error)', async () => {
    const { e, newSessions } = await sessionLostNotIdempotent(reissueReconnectingFirst);
    expect(newSessions).toBe(1);
    expect(e).not.toBeInstanceOf(StreamResumptionError);
  });
});
