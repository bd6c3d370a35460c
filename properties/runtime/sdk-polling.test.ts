/**
 * The SDK's own polling through the guard (SEP-1699, MCP 2025-11-25): an SDK 1.32.2 server with
 * `ContinuityEventStore` that ends a call's stream 3, 10 and 50 times (`closeSSEStream()` with a
 * `retryInterval`). The SDK clients (1.32.2 and 2.4.0) reconnect without `Last-Event-ID` after a
 * resumed stream that ended before any event (docs/conformance.md, finding 23); the guard, which
 * can attribute that GET to the one stream of the session it holds, sends it with its cursor. The
 * call completes through `Client.callTool`, with every notification once and in order, and the
 * server never sees a call's reconnect without its cursor. The mutant: the guard that fails
 * every cursor-less reconnect (`cursorless-never-restored`) fails the call.
 */
import { afterEach, describe, expect, test } from 'vitest';
import {
  continuityGuard,
  inspectGuard,
  resumptionFailureOf,
  type ContinuityGuardOptions,
  type StreamResumptionError,
} from '../../src/runtime/index.js';
import { mutantGuard } from '../../src/runtime-mutants/guard-mutants.js';
import { pollServer, type PollServer } from './poll-server.js';
import { callTool } from './sdk-call.js';
import { SDK_KINDS } from './sdk-clients.js';

/** The server's retry interval: small, so that 50 polls take about 2 s. */
const RETRY_MS = 10;
const OPTIONS: ContinuityGuardOptions = { minRetryMs: 1, proofTimeoutMs: 5_000 };

const running: PollServer[] = [];
afterEach(async () => {
  for (const s of running.splice(0)) await s.close();
});

async function serve(polls: number): Promise<PollServer> {
  const s = await pollServer(polls, RETRY_MS);
  running.push(s);
  return s;
}

describe.each(SDK_KINDS)('SDK %s Client.callTool against a polling SDK server', (kind) => {
  test.each([3, 10, 50])(
    'the call completes after %i polls, every notification once and in order',
    async (polls) => {
      const s = await serve(polls);
      const failures: StreamResumptionError[] = [];
      const f = continuityGuard(fetch, { ...OPTIONS, onFailure: (e) => failures.push(e) });
      const r = await callTool(kind, s.url, f, { timeoutMs: 30_000 });
      expect(r.error, String(r.error)).toBeUndefined();
      expect(failures).toEqual([]);
      expect(r.notes).toEqual(s.sent());
      expect(r.notes).toHaveLength(1 + Math.floor(polls / 3));
      // Every reconnect of the call reached the server with its cursor: the one GET without
      // one is the session's standalone stream.
      const resumes = s.gets.filter((g) => g.lastEventId !== undefined);
      expect(resumes.length).toBeGreaterThanOrEqual(polls);
      expect(resumes.filter((g) => g.status !== undefined && g.status !== 200)).toEqual([]);
      expect(s.gets.filter((g) => g.lastEventId === undefined).length).toBeLessThanOrEqual(1);
      // (The standalone stream, closed with the client, may stay owed a reconnect.)
      expect(inspectGuard(f)).toMatchObject({ failed: 0, pending: 0 });
    },
    30_000,
  );
});

test.each(SDK_KINDS)(
  'the mutant that never restores a dropped cursor fails the polling call (SDK %s)',
  async (kind) => {
    const s = await serve(3);
    const f = mutantGuard(fetch, OPTIONS, 'cursorless-never-restored');
    const r = await callTool(kind, s.url, f, { timeoutMs: 30_000 });
    expect(resumptionFailureOf(r.error)).toMatchObject({ code: 'cursor-dropped' });
  },
  30_000,
);

test.each(SDK_KINDS)(
  'finding 23: the bare SDK %s client drops its cursor after an empty poll; the server answers 409 and the call waits for its timeout',
  async (kind) => {
    const s = await serve(3);
    const r = await callTool(kind, s.url, fetch, { timeoutMs: 1_500 });
    expect(String((r.error as Error | undefined)?.message)).toMatch(/timed out/i);
    // After the standalone stream, a GET without Last-Event-ID: the call's, refused.
    const cursorless = s.gets.filter((g) => g.lastEventId === undefined);
    expect(cursorless.length).toBeGreaterThan(1);
    expect(cursorless.slice(1).map((g) => g.status)).toContain(409);
  },
  30_000,
);
