/**
 * One run of the differential property: the scenario's servers, a client (SDK 1.x, SDK 2.x or
 * the direct client) wrapped by the guard (or one of its mutants), and the four claims judged
 * on what happened.
 */
import { checkTrace } from '../../src/trace/check.js';
import {
  continuityGuard,
  idReaderFromPattern,
  inspectGuard,
  type ContinuityGuardOptions,
  type GuardTraceLine,
  type StreamResumptionError,
} from '../../src/runtime/index.js';
import { mutantGuard, type GuardMutantName } from '../../src/runtime-mutants/guard-mutants.js';
import { directCall } from './direct-client.js';
import { BUDGET_MS, ID_PATTERN, playServers, type Scenario } from './scenario.js';
import { callThrough, type SdkKind } from './sdk-clients.js';

/** The clients the property runs. */
export type ClientKind = SdkKind | 'direct';

/** The range the suite's guards clamp `retry:` to. */
export const RETRY_RANGE = { min: 10, max: 100 } as const;

/** The claims' names. */
export type Claim =
  'NoSilentGap' | 'GuardAgreesWithOracle' | 'RetryInRange' | 'StateFreed' | 'CallSettles';

/** A claim broken, in words. */
export interface Broken {
  claim: Claim;
  why: string;
}

/**
 * NoSilentGap: the owed messages the application received are exactly 1..m, once each, in
 * order, all from the call's own log; the result only after all of them. A call cut short is
 * no gap; a message from after a gap (or from another log) is.
 */
export function noSilentGap(s: Scenario, messages: Record<string, unknown>[]): string | null {
  let next = 1;
  for (const m of messages) {
    if (m.method === 'notifications/message') {
      const data = (m.params as { data?: unknown }).data;
      if (data === 'idless') continue; // not owed: no id can name it
      const { i, from } = data as { i: number; from: string };
      if (from !== 'log') return `message ${i} from ${from} reached the application`;
      if (i !== next) return `message ${i} reached the application where ${next} was owed`;
      next++;
    } else if ('result' in m) {
      const from = (m.result as { from: string }).from;
      if (from !== 'log') return `the result from ${from} reached the application`;
      if (next !== s.owed + 1) {
        return `the result reached the application after ${next - 1} of ${s.owed} messages`;
      }
      next++;
    }
  }
  return null;
}

/** GuardAgreesWithOracle: every reconnect of every stream's trace is judged `ok`. */
export async function guardAgreesWithOracle(
  traces: Map<number, GuardTraceLine[]>,
): Promise<string | null> {
  for (const [stream, lines] of traces) {
    if (!lines.some((l) => l.type === 'reconnect')) continue;
    const report = await checkTrace(
      lines.map((l) => JSON.stringify(l)),
      { proofBudget: BUDGET_MS },
    );
    const bad = report.reconnects.find((r) => r.verdict !== 'ok');
    if (bad) {
      return `stream ${stream}, line ${bad.line}: ${bad.verdict}: ${bad.reason}\n${lines.map((l) => JSON.stringify(l)).join('\n')}`;
    }
  }
  return null;
}

/** What one run observed, and the claims it broke. */
export interface RunResult {
  broken: Broken[];
  messages: Record<string, unknown>[];
  failures: string[];
}

/**
 * The options the suite's guards run with: its id pattern, proof budget and bounds, failures to
 * `onFailure`, and each stream's trace kept in `traces`.
 */
export function suiteOptions(
  traces: Map<number, GuardTraceLine[]>,
  onFailure: (e: StreamResumptionError) => void,
): ContinuityGuardOptions {
  return {
    readId: idReaderFromPattern(ID_PATTERN),
    proofTimeoutMs: BUDGET_MS,
    firstHeadersTimeoutMs: 2_000,
    minRetryMs: RETRY_RANGE.min,
    maxRetryMs: RETRY_RANGE.max,
    onFailure,
    onTrace: (line, stream) => {
      const lines = traces.get(stream) ?? [];
      lines.push(line);
      traces.set(stream, lines);
    },
  };
}

/** Lets every budget still running on `fetchFn` decide (at most 4 budgets) before traces are judged. */
export async function budgetsDecided(fetchFn: typeof fetch): Promise<void> {
  for (let waited = 0; inspectGuard(fetchFn)!.pending > 0 && waited < 4 * BUDGET_MS; waited += 10) {
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Runs scenario `s` with client `kind` through the guard (or `mutant`). */
export async function runGuarded(
  kind: ClientKind,
  s: Scenario,
  mutant?: GuardMutantName,
  extra: ContinuityGuardOptions = {},
): Promise<RunResult> {
  const servers = await playServers(s);
  const traces = new Map<number, GuardTraceLine[]>();
  const failures: StreamResumptionError[] = [];
  const options = { ...suiteOptions(traces, (e) => failures.push(e)), ...extra };
  const fetchFn = mutant ? mutantGuard(fetch, options, mutant) : continuityGuard(fetch, options);
  let messages: Record<string, unknown>[];
  let retries: number[] = [];
  try {
    if (kind === 'direct') {
      const run = await directCall(
        servers.main.url,
        fetchFn,
        s.sendCursor.slice(0, s.gets.length + 1),
        4 * BUDGET_MS,
      );
      messages = run.messages;
      retries = run.retries;
    } else {
      messages = (await callThrough(kind, servers.main.url, fetchFn, { quietMs: 2 * BUDGET_MS }))
        .messages;
    }
    await budgetsDecided(fetchFn);
  } finally {
    await servers.close();
  }
  const broken: Broken[] = [];
  const gap = noSilentGap(s, messages);
  if (gap) broken.push({ claim: 'NoSilentGap', why: gap });
  const oracle = await guardAgreesWithOracle(traces);
  if (oracle) broken.push({ claim: 'GuardAgreesWithOracle', why: oracle });
  const outside = retries.filter((r) => r < RETRY_RANGE.min || r > RETRY_RANGE.max);
  if (outside.length > 0) {
    broken.push({
      claim: 'RetryInRange',
      why: `retry ${outside.join(', ')} reached the application`,
    });
  }
  const state = inspectGuard(fetchFn)!;
  if (kind === 'direct' && state.streams !== state.failed + state.owed) {
    broken.push({
      claim: 'StateFreed',
      why: `the guard holds ${state.streams} streams, of which only ${state.failed} failed and ${state.owed} owed a reconnect`,
    });
  }
  return { broken, messages, failures: failures.map((f) => f.code) };
}
