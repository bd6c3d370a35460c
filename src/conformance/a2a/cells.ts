/**
 * The A2A rows of the conformance kit: each scenario of ./scenarios.ts against an
 * `@a2a-js/sdk` 1.3.0 server with the SDK's in-memory task store and with the same store behind
 * write and read latency. A cell is judged twice:
 * - by the **checker**: the cell's wire facts, written in the `a2a` binding's vocabulary
 *   (model/bindings/a2a.ts), go through `checkTrace` under era 1.0, the protocol the SDK speaks;
 *   the cell's verdict is the machine's outcome of the resubscribe. A 1.0 resubscribe carries
 *   no cursor, so it is `resumption-failed` at rule 0 wherever the stream went well or badly
 *   (remedy: re-sync with GetTask after the stream ends), and `session-lost` on TaskNotFound;
 * - by the **ground truth** (./truth.ts): what the agent emitted against what the client
 *   received: clean, loss, duplicate, or refused. This is what a 1.0 client cannot see.
 *
 * Beside them, the **dev-1.1 reading**: the same frames with the `generation` a dev-1.1 server
 * that numbers at publish would have sent (the Task 1, e<k> k+1, a snapshot 1 + the last event
 * it folds); the SDK sends none, so this reading is the kit's, and says what `generation`
 * would let a client see.
 */
import { a2aOfEra, type A2aEra } from '../../../model/bindings/a2a.js';
import { checkTrace } from '../../trace/check.js';
import { A2A_SCENARIOS, type A2aRun, type A2aScenario } from './scenarios.js';
import { A2A_SDK_VERSION, startSdkServer, type EmittedEvent } from './sdk-server.js';
import { KitTaskStore } from './store.js';
import { judgeTruth, type A2aTruthReport } from './truth.js';
import { eventOf, textsOf, type Frame } from './wire.js';

/** A row: the SDK server with one task store. */
export interface A2aRow {
  name: string;
  /** The store's latency (ms); absent: the SDK's in-memory store as it is. */
  latency?: { writeMs: number; readMs: number };
}

/** The built-in rows: the in-memory store, and the store with 200 ms of write and read latency. */
export const A2A_ROWS: readonly A2aRow[] = [
  { name: `sdk-${A2A_SDK_VERSION}+memory` },
  { name: `sdk-${A2A_SDK_VERSION}+slow-store`, latency: { writeMs: 200, readMs: 200 } },
];

/** What the checker made of a cell's trace under one era. */
export interface A2aOracle {
  era: A2aEra;
  /** The machine's outcome of the resubscribe (`none`: the trace had no resubscribe). */
  outcome: string;
  /** Rule number and reason code (docs/spec.md). */
  rule: number | null;
  code: string | null;
  /** The reason in the binding's words. */
  reason: string;
  /** Continuity breaks the checker found after the resubscribe (the ids it expected vs got). */
  breaks: string[];
}

/** One judged A2A cell. */
export interface A2aCell {
  row: string;
  scenario: string;
  /** `error`: the cell could not run (what went wrong is in `truth.text`). */
  truth: A2aTruthReport | { truth: 'error'; text: string };
  /** The checker under era 1.0: the cell's verdict. */
  verdict: A2aOracle | null;
  /** The dev-1.1 reading of the same frames (see the module's text). */
  dev11: A2aOracle | null;
  placement: string;
  /** The trace under era 1.0, one JSON line each (`check --binding a2a` reads it). */
  trace: string[];
  /** What the scenario recorded (absent when it could not run): the tests judge it again. */
  run?: A2aRun & { emitted: readonly EmittedEvent[] };
  ms: number;
}

/** The line of a frame in the binding's vocabulary. */
function lineOf(f: Frame, taskId: string, generation?: (f: Frame) => number | undefined): object {
  switch (f.kind) {
    case 'error':
      return { type: 'a2a/error', taskId, status: f.status, body: f.data };
    case 'end':
      return { type: 'a2a/end', taskId };
    case 'broken':
      return { type: 'disconnect', taskId };
    default: {
      const g = generation?.(f);
      if (g === undefined) return { type: 'a2a/frame', data: f.data };
      const data = structuredClone(f.data) as { result: Record<string, Record<string, unknown>> };
      data.result[f.kind]!['generation'] = g;
      return { type: 'a2a/frame', data };
    }
  }
}

/** The generation a dev-1.1 server numbering at publish would give a frame. */
function dev11Generation(f: Frame): number | undefined {
  const k = eventOf(f);
  if (k !== undefined) return k + 1;
  if (f.kind !== 'task') return undefined;
  const ks = textsOf(f.value).flatMap((t) => [...t.matchAll(/e(\d+)/g)].map((m) => Number(m[1])));
  return 1 + Math.max(0, ...ks);
}

/** The trace of a run under `era` (dev-1.1: with the kit's generations). */
export function traceOf(run: A2aRun, era: A2aEra): string[] {
  const gen = era === '1.0' ? undefined : dev11Generation;
  const lines: object[] = [{ type: 'binding', name: 'a2a', era }];
  if (run.before.length > 0) {
    lines.push({ type: 'a2a/send', taskId: run.taskId });
    for (const f of run.before) if (f.kind !== 'end') lines.push(lineOf(f, run.taskId, gen));
    lines.push({ type: 'disconnect', taskId: run.taskId });
  }
  lines.push({ type: 'a2a/subscribe', taskId: run.taskId });
  for (const f of run.after) lines.push(lineOf(f, run.taskId, gen));
  return lines.map((l) => JSON.stringify(l));
}

/** Judges `trace` with the `a2a` binding of `era`: the resubscribe's outcome. */
export async function oracleOf(trace: string[], era: A2aEra): Promise<A2aOracle> {
  let report;
  try {
    report = await checkTrace(trace, { binding: a2aOfEra(era) });
  } catch (e) {
    const reason = `the checker refused the trace: ${(e as Error).message}`;
    return { era, outcome: 'error', rule: null, code: null, reason, breaks: [] };
  }
  const r = report.reconnects[0];
  return {
    era,
    outcome: r?.expected ?? 'none',
    rule: r?.rule ?? null,
    code: r?.code ?? null,
    // The kit writes no decision line: keep the oracle's reason only.
    reason: r
      ? r.reason.replace(/^no decision line; the oracle says [a-z-]+: /, '')
      : 'no resubscribe',
    breaks: report.breaks.map((b) => `expected ${b.expected}, got ${b.got}`),
  };
}

/** Runs one scenario against a fresh server of `row`; never throws (a failure is `error`). */
export async function runA2aCell(
  row: A2aRow,
  scenario: A2aScenario,
  timeoutMs = 2000,
): Promise<A2aCell> {
  const started = Date.now();
  const store = new KitTaskStore(row.latency);
  const server = await startSdkServer(store);
  const base = { row: row.name, scenario: scenario.name };
  try {
    const run = await scenario.run({ server, timeoutMs });
    const truth = judgeTruth(server.agent.emitted, run.before, run.after, run.server);
    const trace = traceOf(run, '1.0');
    return {
      ...base,
      truth,
      verdict: await oracleOf(trace, '1.0'),
      dev11: await oracleOf(traceOf(run, 'dev-1.1'), 'dev-1.1'),
      placement: run.placement,
      trace,
      run: { ...run, emitted: [...server.agent.emitted] },
      ms: Date.now() - started,
    };
  } catch (e) {
    return {
      ...base,
      truth: { truth: 'error', text: (e as Error).message },
      verdict: null,
      dev11: null,
      placement: placementLine(store),
      trace: [],
      ms: Date.now() - started,
    };
  } finally {
    server.agent.stop();
    await server.close();
  }
}

function placementLine(store: KitTaskStore): string {
  return store.log.some((s) => s.what === 'hold-timeout') ? 'a placement hold ran out' : '';
}

/** Options of {@link runA2aMatrix}. */
export interface A2aMatrixOptions {
  /** Scenario names to run (default: all). */
  only?: readonly string[];
  timeoutMs?: number;
  onCell?: (c: A2aCell) => void;
}

/** Every built-in row × every (chosen) scenario, one cell at a time. */
export async function runA2aMatrix(options: A2aMatrixOptions = {}): Promise<A2aCell[]> {
  const cells: A2aCell[] = [];
  for (const row of A2A_ROWS) {
    for (const s of A2A_SCENARIOS) {
      if (options.only && !options.only.includes(s.name)) continue;
      const c = await runA2aCell(row, s, options.timeoutMs);
      options.onCell?.(c);
      cells.push(c);
    }
  }
  return cells;
}
