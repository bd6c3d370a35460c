/**
 * One run of the differential property through what applications call: the scenario's
 * servers, an SDK `Client` (1.x or 2.x) whose transport's `fetch` is the guard, one
 * `callTool`. Beside NoSilentGap and GuardAgreesWithOracle it judges CallSettles: when the
 * guard fails the call's stream before the call has its whole answer, the call rejects with the
 * guard's error and its outcome (it never waits for the SDK's request timeout); when nothing
 * failed, the call resolves.
 */
import { mutantGuard, type GuardMutantName } from '../../src/runtime-mutants/guard-mutants.js';
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
import { connectClient, type Settled } from './sdk-call.js';
import type { SdkKind } from './sdk-clients.js';

/** The SDK's own request timeout in these runs: a call that reaches it waited. */
export const CALL_TIMEOUT_MS = 6_000;

/** What one run observed. */
export interface CallRun {
  broken: Broken[];
  /** ms from the guard's failure to the call's rejection (`null`: nothing failed). */
  settledAfterMs: number | null;
}

/** The SDK's own request timeout: -32001 (1.x `McpError`), `REQUEST_TIMEOUT` (2.x `SdkError`). */
function isSdkTimeout(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === -32001 || code === 'REQUEST_TIMEOUT';
}

/**
 * Why a call that rejected with the SDK's own request timeout, while the guard failed nothing,
 * is not the honest timeout of a held stream (`null`: it is). Honest: the guard decided every
 * reconnect it saw, the last decision was `resumed`, and after it nothing ended the stream (no
 * end, disconnect, idle timeout or reconnect): the server holds a proven stream and never sends
 * the result, which only the application's timeout can tell. A reconnect left undecided (a
 * guard that never judges a silent resume) is not; nor is a call that never reconnected.
 */
export function notHeldAfterResumed(traces: Map<number, GuardTraceLine[]>): string | null {
  let resumed = false;
  for (const [stream, lines] of traces) {
    const last = lines.findLastIndex((l) => l.type === 'reconnect');
    if (last < 0) continue;
    const decided = lines.findLastIndex((l) => l.type === 'decision');
    if (decided < last)
      return `stream ${stream}: its reconnect (line ${last + 1}) was never decided`;
    const decision = lines[decided]!;
    if (decision.type !== 'decision' || decision.outcome !== 'resumed') continue;
    const after = lines
      .slice(decided + 1)
      .find((l) => ['end', 'disconnect', 'idle-timeout', 'reconnect'].includes(l.type));
    if (after) return `stream ${stream}: ${after.type} after its resume was decided`;
    resumed = true;
  }
  return resumed ? null : 'no stream was resumed and held';
}

/** Runs scenario `s` through `Client.callTool` of SDK `kind` and the guard (or `mutant`). */
export async function runGuardedCall(
  kind: SdkKind,
  s: Scenario,
  extra: ContinuityGuardOptions = {},
  mutant?: GuardMutantName,
): Promise<CallRun> {
  const servers = await playServers(s);
  const traces = new Map<number, GuardTraceLine[]>();
  const failures: { error: StreamResumptionError; at: number }[] = [];
  const options = {
    ...suiteOptions(traces, (error) => failures.push({ error, at: Date.now() })),
    ...extra,
  };
  const fetchFn = mutant ? mutantGuard(fetch, options, mutant) : continuityGuard(fetch, options);
  let settled: Settled;
  // The streams as they stood when the call settled: what the client's close does next (it
  // cancels the bodies) is no part of the call.
  let atSettle: Map<number, GuardTraceLine[]>;
  try {
    const client = await connectClient(kind, servers.main.url, fetchFn);
    try {
      settled = await client.call(CALL_TIMEOUT_MS);
      atSettle = new Map([...traces].map(([k, lines]) => [k, [...lines]]));
    } finally {
      await client.close();
    }
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
  // (A failure the client's close caused, after the call settled, is no decision about it.)
  const ofCall = failures.filter((f) => f.error.method === 'tools/call' && f.at <= settled.at);
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
    // A proven stream the server holds open without the result: the SDK's own timeout is the
    // honest end of that call (seed 1306244418); anything else that rejects is broken.
    const why = isSdkTimeout(settled.error) ? notHeldAfterResumed(atSettle) : 'not a timeout';
    if (why !== null) {
      broken.push({
        claim: 'CallSettles',
        why: `nothing failed, yet the call rejected with ${String(settled.error)} (${why})`,
      });
    }
  }
  return { broken, settledAfterMs };
}
