/**
 * One run of the differential property through what applications call: the scenario's
 * servers, an SDK `Client` (1.x or 2.x) whose transport's `fetch` is the guard, one
 * `callTool`. Beside NoSilentGap and GuardAgreesWithOracle it judges CallSettles: when the
 * guard fails the call's stream before the call has its whole answer, the call rejects with the
 * guard's error and its outcome (it never waits for the SDK's request timeout); when nothing
 * failed, the call resolves.
 */
import {
  continuityGuard,
  resumptionFailureOf,
  type ContinuityGuardOptions,
  type GuardTraceLine,
  type StreamResumptionError,
} from '../../src/runtime/index.js';
import {
  budgetsDecided,
  guardAgreesWithOracle,
  noSilentGap,
  suiteOptions,
  type Broken,
} from './run-guarded.js';
import { playServers, type Scenario } from './scenario.js';
import { callTool } from './sdk-call.js';
import type { SdkKind } from './sdk-clients.js';

/** The SDK's own request timeout in these runs: a call that reaches it waited. */
export const CALL_TIMEOUT_MS = 6_000;

/** What one run observed. */
export interface CallRun {
  broken: Broken[];
  /** ms from the guard's failure to the call's rejection (`null`: nothing failed). */
  settledAfterMs: number | null;
}

/** Runs scenario `s` through `Client.callTool` of SDK `kind` and the guard. */
export async function runGuardedCall(
  kind: SdkKind,
  s: Scenario,
  extra: ContinuityGuardOptions = {},
): Promise<CallRun> {
  const servers = await playServers(s);
  const traces = new Map<number, GuardTraceLine[]>();
  const failures: { error: StreamResumptionError; at: number }[] = [];
  const fetchFn = continuityGuard(fetch, {
    ...suiteOptions(traces, (error) => failures.push({ error, at: Date.now() })),
    ...extra,
  });
  let settled;
  try {
    settled = await callTool(kind, servers.main.url, fetchFn, { timeoutMs: CALL_TIMEOUT_MS });
    await budgetsDecided(fetchFn);
  } finally {
    await servers.close();
  }
  const broken: Broken[] = [];
  const messages: Record<string, unknown>[] = settled.notes.map((data) => ({
    method: 'notifications/message',
    params: { data },
  }));
  if (settled.result !== undefined) messages.push({ result: settled.result });
  const gap = noSilentGap(s, messages);
  if (gap) broken.push({ claim: 'NoSilentGap', why: gap });
  const oracle = await guardAgreesWithOracle(traces);
  if (oracle) broken.push({ claim: 'GuardAgreesWithOracle', why: oracle });
  const ofCall = failures.filter((f) => f.error.method === 'tools/call');
  const first = ofCall[0];
  const got = resumptionFailureOf(settled.error);
  let settledAfterMs: number | null = null;
  if (first) {
    // A failure after the call had its whole answer (the result, after every owed message,
    // NoSilentGap above) leaves nothing to end: a duplicate after the result breaks the stream,
    // not the call.
    const answered = settled.result !== undefined && gap === null;
    if (!got && answered) {
      settledAfterMs = null;
    } else if (!got) {
      broken.push({
        claim: 'CallSettles',
        why: `the guard failed the call's stream (${first.error.outcome}, ${first.error.code}) but the call ${settled.error === undefined ? 'resolved' : `rejected with ${String(settled.error)}`}`,
      });
    } else if (got.outcome !== first.error.outcome || got.code !== first.error.code) {
      broken.push({
        claim: 'CallSettles',
        why: `the call rejected with ${got.outcome} (${got.code}), the guard decided ${first.error.outcome} (${first.error.code})`,
      });
    } else settledAfterMs = settled.at - first.at;
  } else if (settled.error !== undefined) {
    broken.push({
      claim: 'CallSettles',
      why: `nothing failed, yet the call rejected with ${String(settled.error)}`,
    });
  }
  return { broken, settledAfterMs };
}
