/**
 * Runs scenarios against implementations: one fresh server per cell, every cell bounded, the
 * recorded trace judged by the trace oracle (`checkTrace`) beside the ground truth.
 */
import { checkTrace } from '../../trace/check.js';
import type { CheckReport } from '../../trace/report.js';
import { PROTOCOL_VERSION, TraceRecorder } from '../recording/recorder.js';
import { RELEASE_TOOL, RemoteControl, STATUS_TOOL } from '../remote-control.js';
import { ReplayPause } from '../replay-window.js';
import {
  NOT_RESUMABLE,
  SCENARIOS,
  type Scenario,
  type ScenarioContext,
} from '../scenarios/index.js';
import { HoldControl, SERVE_CONTRACT_HINT, saysToolMissing } from '../tool.js';
import {
  ControlChannelError,
  Era2026Error,
  NOT_RESUMABLE_2026,
  LeakError,
  NoAnswerError,
  type CellResult,
  type CellVerdict,
  type IdCodec,
  type ImplementationAdapter,
} from '../types.js';

/** Settings of a run. */
export interface MatrixOptions {
  /** Server keepalive interval (ms). Default 100. */
  keepAliveMs?: number;
  /** Store retention (events) where it can be set. Default 16. */
  retention?: number;
  /** Bound on each request (ms). Default 2000. */
  timeoutMs?: number;
  /** Silence meaning "nothing more is coming" (ms). Default 400. */
  idleMs?: number;
  /** Bound on a whole cell (ms): beyond it the cell is a hang. Default 10000. */
  cellTimeoutMs?: number;
  /** The protocol version the harness asks for in `initialize`. Default 2025-11-25. */
  protocolVersion?: string;
}

/** The oracle's reading of a cell's trace, beside the ground truth. */
export interface OracleView {
  /** Expected outcome of each reconnect, in order. */
  outcomes: string[];
  /** Continuity breaks the oracle found. */
  breaks: number;
  /** Reconnects whose cursor was ahead of what the client received. */
  cursorAhead: number;
  /** `true` when the oracle and the ground truth agree. */
  agrees: boolean;
  /** Where they disagree: which one is wrong, and why. */
  note?: string;
  /** The oracle failed on the trace (bad input): the message. */
  error?: string;
}

/** A cell with the oracle's view. */
export interface JudgedCell extends CellResult {
  oracle?: OracleView;
}

/** An implementation to run: a fresh adapter per cell. */
export interface ImplementationEntry {
  name: string;
  /** A fresh adapter (not started yet); called once per cell. */
  make(): ImplementationAdapter;
}

function accepting(outcome: string): boolean {
  return outcome === 'resumed' || outcome === 'delayed';
}

const GLOBAL_IDS_NOTE =
  'oracle misled by how the ids are read (--id-pattern): the ids carry one global sequence, so events of ' +
  'interleaved streams look like gaps; a client cannot prove continuity from such ids';

/** Compares the oracle's report with the cell's ground truth verdict. */
export function compareOracle(cell: CellResult, report: CheckReport, codec: IdCodec): OracleView {
  const opaque = codec.pattern === null;
  const global = codec.sequence === 'global';
  const outcomes = report.reconnects.map((r) => r.expected);
  const breaks = report.breaks.length;
  const cursorAhead = report.cursorAhead.length;
  const last = outcomes.at(-1);
  const view: OracleView = { outcomes, breaks, cursorAhead, agrees: true };
  const flagged = breaks > 0 || cursorAhead > 0 || (last !== undefined && !accepting(last));
  if (cell.verdict === 'n/a') return view;
  if (last === undefined) {
    // No reconnect: there is no resumption for the oracle to judge. Only a cell that ran to its
    // end and judged the stream's continuity (reader-stall: honored or silent loss) can be
    // compared with the ids; any other ending happened before a reconnect, and the note says
    // what it was instead of blaming the oracle.
    if (cell.verdict !== 'honored' && cell.verdict !== 'silent loss') {
      view.note = `no reconnect happened, so no resumption for the oracle to judge: the cell is ${cell.verdict} (${cell.observed})`;
      return view;
    }
    const bad = cell.verdict === 'silent loss';
    view.agrees = bad === breaks > 0;
    if (!view.agrees) {
      view.note = bad
        ? 'oracle blind here, not wrong: messages were lost on a stream that was never ' +
          'reconnected, and the ids it carried stayed contiguous (the lost ones never had ids)'
        : global
          ? GLOBAL_IDS_NOTE
          : 'oracle wrong: it reports a break on a stream that delivered everything';
    }
    return view;
  }
  if (cell.verdict === 'honored') {
    view.agrees = !flagged;
    if (!view.agrees) {
      view.note = opaque
        ? 'oracle conservative, not wrong: the ids carry no sequence, so no event can prove ' +
          'it is the successor of the cursor; the server replayed correctly but a client ' +
          'cannot know it (only an event whose id is the Last-Event-ID + 1, or the server stating the ' +
          'first id it replays from, proves it)'
        : global
          ? GLOBAL_IDS_NOTE
          : `oracle stricter than what happened: ${report.reconnects.at(-1)?.reason ?? 'break'}`;
    }
    return view;
  }
  view.agrees = flagged;
  if (!view.agrees && cell.verdict === 'leak') {
    view.note =
      'oracle blind here, not wrong about continuity: the replayed events are the true ' +
      'successors of the cursor; a trace has no session identity, so only the harness (which ' +
      "knows what it sent) sees that they belong to another session's stream";
  } else if (!view.agrees) {
    view.note = opaque
      ? 'oracle wrong on this trace: opaque ids were numbered by arrival, which hides the gap ' +
        '(the trace cannot express what the ids do not carry)'
      : `oracle wrong: it accepted (${last}) a reconnect that was ${cell.verdict}; ` +
        'the ids it saw were contiguous from the cursor';
  }
  return view;
}

/** The reason of a refused resume against a server without sessions. */
export const STATELESS = 'stateless: no session to resume';

/** The verdict and words of a cell whose scenario threw `e`. */
function failedCell(
  e: unknown,
  message: string,
): Pick<CellResult, 'verdict' | 'observed'> & {
  security?: boolean;
} {
  if (e instanceof LeakError) {
    return { verdict: 'leak', observed: message, ...(e.crossSession ? { security: true } : {}) };
  }
  if (e instanceof ControlChannelError) {
    const missing = [RELEASE_TOOL, STATUS_TOOL].some((t) => saysToolMissing(message, t));
    const hint = missing ? `; ${SERVE_CONTRACT_HINT}` : '';
    return { verdict: 'error', observed: `control channel: ${message}${hint}` };
  }
  if (e instanceof NoAnswerError) {
    return { verdict: 'hang', observed: `no answer within the bound: ${message}` };
  }
  return { verdict: 'error', observed: `could not run the scenario: ${message}` };
}

/** Waits for `p` at most `ms`; a stop that never returns must not hang the run. */
export async function bounded(p: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    p.catch(() => {}),
    new Promise<void>((r) => {
      timer = setTimeout(r, ms);
      timer.unref();
    }),
  ]);
  clearTimeout(timer);
}

/** Runs one scenario against a fresh instance of one implementation. */
export async function runCell(
  entry: ImplementationEntry,
  scenario: Scenario,
  options: MatrixOptions = {},
): Promise<JudgedCell> {
  const started = Date.now();
  const base = {
    implementation: entry.name,
    scenario: scenario.name,
    reconnects: [],
    trace: [],
  };
  let adapter: ImplementationAdapter;
  try {
    adapter = entry.make();
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    return { ...base, verdict: 'error', observed: `make() threw: ${message}`, ms: 0 };
  }
  const why = scenario.requires?.(adapter) ?? null;
  if (why !== null) {
    return { ...base, verdict: 'n/a', observed: 'not run', reason: why, ms: 0 };
  }
  const hold = new HoldControl();
  const replay = scenario.pauseReplay ? new ReplayPause() : undefined;
  const trace = new TraceRecorder(adapter.idCodec);
  // A server whose keepalive cannot be set runs with its own (declared) interval.
  const keepAliveMs = adapter.capabilities.keepalive
    ? (options.keepAliveMs ?? 100)
    : (adapter.capabilities.keepAliveMs ?? options.keepAliveMs ?? 100);
  const retention = options.retention ?? 16;
  const timeoutMs = options.timeoutMs ?? 2000;
  const protocolVersion = options.protocolVersion ?? PROTOCOL_VERSION;
  const remote = adapter.toolControl === 'remote';
  // A remote server outlives the cell: each cell's calls get tags of their own.
  const nonce = Math.random().toString(36).slice(2, 7);
  let remoteControl: RemoteControl | undefined;
  const ctx: ScenarioContext = {
    adapter,
    url: '',
    control: hold,
    trace,
    tag: (base) => {
      if (!remote) return base;
      const tag = `${base}-${nonce}`;
      remoteControl?.track(tag);
      return tag;
    },
    protocolVersion,
    keepAliveMs,
    retention,
    timeoutMs,
    idleMs: options.idleMs ?? 400,
    clients: [],
    streams: [],
    watch: remote,
    ...(replay ? { replay } : {}),
  };
  let cell: JudgedCell;
  let timer: NodeJS.Timeout | undefined;
  // An adapter's promise that rejects with nobody listening would end the process (and the
  // report with it): it is caught here, for the cell's whole life, and makes the cell `error`.
  let rejection: { reason: unknown } | undefined;
  let onRejection: () => void = () => {};
  const rejected = new Promise<'rejected'>((r) => (onRejection = () => r('rejected')));
  const listener = (reason: unknown) => {
    rejection ??= { reason };
    onRejection();
  };
  process.on('unhandledRejection', listener);
  try {
    ctx.url = await adapter.start({
      control: hold,
      keepAliveMs,
      retention,
      ...(scenario.storeDelayMs !== undefined ? { storeDelayMs: scenario.storeDelayMs } : {}),
      ...(replay ? { onReplayRead: replay.hook, onFencedWrite: replay.fencedWrite } : {}),
    });
    if (remote) {
      remoteControl = new RemoteControl(ctx.url, timeoutMs, protocolVersion);
      ctx.control = remoteControl;
    }
    // reader-stall waits several keepalive intervals: a slow fixed interval widens the bound.
    const bound = Math.max(options.cellTimeoutMs ?? 10_000, keepAliveMs * 16);
    const timeout = new Promise<'hang'>((r) => (timer = setTimeout(() => r('hang'), bound)));
    const run = await Promise.race([scenario.run(ctx), timeout, rejected]);
    if (run === 'rejected') {
      cell = { ...base, verdict: 'error', observed: '', trace: trace.lines, ms: 0 };
    } else if (run === 'hang') {
      cell = {
        ...base,
        verdict: 'hang',
        observed: `scenario exceeded ${bound} ms`,
        trace: trace.lines,
        ms: Date.now() - started,
      };
    } else {
      // A reconnect without a cursor is a GET without Last-Event-ID, never a resumption: the
      // harness sends the last id it received, so no cursor means the events carried none.
      const noIds = run.reconnects.length > 0 && run.reconnects.every((r) => r.cursor === null);
      // A missing capability is stated once, as the reason of an `n/a`, not as a loss in every
      // cell: without ids there is no cursor, so nothing could have been resumed. A scenario
      // whose loss needs no cursor to be wrong (after-restart: a 200 for a session the server
      // cannot know) keeps its verdict.
      const notResumable =
        noIds && run.verdict === 'silent loss' && scenario.judgedWithoutCursor !== true;
      // A server without sessions has no session to name in a resume: its refusal says so.
      const stateless =
        ctx.clients.length > 0 &&
        ctx.clients.every((c) => c.sessionId === undefined) &&
        run.verdict === 'rejected';
      const reason = notResumable ? NOT_RESUMABLE : stateless ? STATELESS : run.reason;
      cell = {
        ...base,
        verdict: notResumable ? 'n/a' : run.verdict,
        observed: noIds
          ? `${NOT_RESUMABLE} (a GET without Last-Event-ID); ${run.observed}`
          : stateless
            ? `${run.observed}: ${STATELESS}`
            : run.observed,
        ...(reason !== undefined ? { reason } : {}),
        reconnects: run.reconnects,
        truth: run.truth,
        trace: trace.lines,
        ms: Date.now() - started,
        ...(run.security ? { security: true } : {}),
        ...(run.finding !== undefined ? { finding: run.finding } : {}),
      };
    }
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    // A server without sessions whose call stopped once the client cut its connection: the
    // call died with the connection (the stateless SDK pattern, a transport per request), so
    // there is nothing to wait for and no session to resume. It is that refusal, not a hang
    // (issue 27, misjudgment 3).
    const diedWithConnection =
      e instanceof NoAnswerError &&
      !(e instanceof LeakError) &&
      ctx.clients.length > 0 &&
      ctx.clients.every((c) => c.sessionId === undefined) &&
      trace.lines.some((l) => (JSON.parse(l) as { type?: string }).type === 'disconnect');
    if (e instanceof Era2026Error) {
      cell = {
        ...base,
        verdict: 'n/a',
        observed: `not run: ${message}`,
        reason: NOT_RESUMABLE_2026,
        protocolVersion: '2026-07-28',
        trace: [],
        ms: Date.now() - started,
      };
    } else
      cell = {
        ...base,
        ...(diedWithConnection
          ? {
              verdict: 'rejected' as const,
              observed: `the call died with its connection (${message}): ${STATELESS}`,
              reason: STATELESS,
            }
          : failedCell(e, message)),
        trace: trace.lines,
        ms: Date.now() - started,
      };
  } finally {
    clearTimeout(timer);
    replay?.release();
    for (const s of ctx.streams) s.abort();
    await bounded(ctx.control.releaseAll(), timeoutMs);
    await bounded(hold.releaseAll(), timeoutMs);
    if (remoteControl) await bounded(remoteControl.close(), timeoutMs);
    await bounded(adapter.stop(), 5000);
    // A rejection the stop itself left still counts; give it the turn it needs to surface.
    await new Promise((r) => setImmediate(r));
    process.off('unhandledRejection', listener);
  }
  if (rejection !== undefined) {
    const r = rejection.reason;
    const why = r instanceof Error ? r.message : String(r);
    cell = {
      ...cell,
      verdict: 'error',
      observed: `the adapter left a promise rejected with nobody listening: ${why}`,
      reason: why,
      ms: Date.now() - started,
    };
    delete cell.security;
  }
  const negotiated = ctx.clients.find((c) => c.negotiatedVersion)?.negotiatedVersion;
  if (negotiated !== undefined) cell.protocolVersion = negotiated;
  if (cell.trace.length > 0) {
    try {
      const report = await checkTrace(cell.trace, {
        ...(adapter.idCodec.pattern ? { idPattern: adapter.idCodec.pattern } : {}),
      });
      cell.oracle = compareOracle(cell, report, adapter.idCodec);
    } catch (e) {
      cell.oracle = {
        outcomes: [],
        breaks: 0,
        cursorAhead: 0,
        agrees: false,
        error: e instanceof Error ? e.message : String(e),
      };
    }
  }
  return cell;
}

/** Runs every scenario (or those named in `only`) against every implementation. */
export async function runMatrix(
  entries: readonly ImplementationEntry[],
  options: MatrixOptions & { only?: string[]; scenarios?: readonly Scenario[] } = {},
  onCell?: (cell: JudgedCell) => void,
): Promise<JudgedCell[]> {
  const scenarios = (options.scenarios ?? SCENARIOS).filter(
    (s) => !options.only || options.only.includes(s.name),
  );
  const cells: JudgedCell[] = [];
  for (const entry of entries) {
    if (options.only && !scenarios.length && !options.only.includes(entry.name)) continue;
    for (const scenario of scenarios) {
      const cell = await runCell(entry, scenario, options);
      cells.push(cell);
      onCell?.(cell);
    }
  }
  return cells;
}

/** Counts of each verdict. */
export function tally(cells: readonly JudgedCell[]): Record<CellVerdict, number> {
  const t: Record<CellVerdict, number> = {
    honored: 0,
    rejected: 0,
    'silent loss': 0,
    leak: 0,
    hang: 0,
    error: 0,
    'n/a': 0,
  };
  for (const c of cells) t[c.verdict] += 1;
  return t;
}
