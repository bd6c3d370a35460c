/**
 * The client rows of the matrix: the SDK's own `StreamableHTTPClientTransport` driven through a
 * real tool call (`Client.callTool` with a progress callback), bare or wrapped by
 * {@link continuityGuard}, against a real server. Faults are injected in the network (the
 * server cuts connections, a gate holds reconnects) because the SDK reads its streams eagerly.
 * The verdict is the application's: did the call end with every message, with an error it was
 * told about, or silently short?
 */
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { StreamResumptionError } from '../../reference.js';
import { RING_ID_PATTERN, sdkV1Adapter } from '../adapters/sdk.js';
import {
  continuityGuard,
  idReaderFromPattern,
  type ContinuityGuardOptions,
  type IdReader,
} from '../../runtime/continuity-guard.js';
import { CONTINUITY_ID_PATTERN } from '../../runtime/continuity-store.js';
import { checkTrace } from '../../trace/check.js';
import {
  bounded,
  type ImplementationEntry,
  type JudgedCell,
  type MatrixOptions,
  type OracleView,
} from './matrix.js';
import { parseMessageText, parseResultText, TOOL_NAME, type CountArgs } from '../tool.js';
import { HoldControl } from '../tool.js';
import { describe as describeTruth, groundTruth, owed } from '../scenarios/truth.js';
import { NoAnswerError, type CellVerdict, type Delivered } from '../types.js';
import { packageVersion } from '../versions.js';
import { FaultNetwork } from './fault-network.js';
import { ReplayPause } from '../replay-window.js';
import {
  CLIENT_CALL_TIMEOUT_MS,
  CLIENT_PROOF_BUDGET_MS,
  CLIENT_SCENARIOS,
  type ClientContext,
  type ClientScenario,
} from '../scenarios/clients.js';

export {
  CLIENT_PROOF_BUDGET_MS,
  CLIENT_CALL_TIMEOUT_MS,
  clientSlowStoreReplay,
  CLIENT_SCENARIOS,
} from '../scenarios/clients.js';
export type { ClientScenario } from '../scenarios/clients.js';

/** Which SDK client a row drives. */
export type ClientKind = 'v1' | 'v2';

/** A client row: which client, guarded or not, against which server. */
export interface ClientEntry extends ImplementationEntry {
  /** `v1`: `@modelcontextprotocol/sdk`; `v2`: `@modelcontextprotocol/client`. */
  client: ClientKind;
  /** Wrap the transport's fetch with {@link continuityGuard}. */
  guard: boolean;
  /** The id pattern of the server's ids (named groups `seq`, `stream`). */
  pattern: RegExp;
  /** How the guard reads the server's ids. */
  readId: IdReader;
  /** Extra guard options (tests use them to run mutants of the guard). */
  guardOptions?: Partial<ContinuityGuardOptions>;
}

/** A GET the client made, as the network saw it. */
function row(client: ClientKind, guard: boolean, store: 'ring' | 'continuity'): ClientEntry {
  const pattern = store === 'ring' ? RING_ID_PATTERN : CONTINUITY_ID_PATTERN;
  return {
    name: `sdk-client-${client}${guard ? '+guard' : ''} → ${store}`,
    client,
    make: () => sdkV1Adapter(store),
    guard,
    pattern,
    readId: idReaderFromPattern(pattern),
  };
}

/** The client rows of the matrix (servers: SDK 1.x with the ring store or the reference one). */
export const CLIENT_IMPLEMENTATIONS: readonly ClientEntry[] = [
  row('v1', false, 'ring'),
  row('v1', true, 'ring'),
  row('v1', false, 'continuity'),
  row('v1', true, 'continuity'),
  row('v2', false, 'ring'),
  row('v2', true, 'ring'),
];

/** The client package versions the rows run. */
export function clientVersions(): Record<string, string> {
  return {
    '@modelcontextprotocol/sdk': packageVersion('@modelcontextprotocol/sdk'),
    '@modelcontextprotocol/client': packageVersion('@modelcontextprotocol/client'),
  };
}

/** What the rows need of an SDK client, whichever major version. */
interface DrivenClient {
  callTool(
    args: CountArgs,
    options: {
      timeout: number;
      signal: AbortSignal;
      onprogress: (p: { message?: string }) => void;
    },
  ): Promise<unknown>;
  close(): Promise<void>;
  /** The protocol version the SDK client negotiated in `initialize`. */
  protocolVersion(): string | undefined;
}

const RECONNECTION = {
  initialReconnectionDelay: 50,
  maxReconnectionDelay: 200,
  reconnectionDelayGrowFactor: 1.5,
  maxRetries: 2,
};

async function connectClient(
  kind: ClientKind,
  url: string,
  fetchFn: typeof fetch,
): Promise<DrivenClient> {
  const info = { name: 'conformance-client', version: '1.0.0' };
  if (kind === 'v1') {
    const transport = new StreamableHTTPClientTransport(new URL(url), {
      fetch: fetchFn,
      reconnectionOptions: RECONNECTION,
    });
    const client = new Client(info);
    await client.connect(transport);
    transport.onerror = () => {};
    return {
      callTool: (args, o) =>
        client.callTool({ name: TOOL_NAME, arguments: { ...args } }, undefined, o),
      close: () => transport.close(),
      protocolVersion: () => transport.protocolVersion,
    };
  }
  const transport = new TransportV2(new URL(url), {
    fetch: fetchFn,
    reconnectionOptions: RECONNECTION,
  });
  const client = new ClientV2(info);
  await client.connect(transport);
  transport.onerror = () => {};
  return {
    callTool: (args, o) => client.callTool({ name: TOOL_NAME, arguments: { ...args } }, o),
    close: () => transport.close(),
    protocolVersion: () => transport.protocolVersion,
  };
}

function busyWait(ms: number): void {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    // the application is busy: nothing else runs
  }
}

/** Runs one client scenario against a fresh server. */
export async function runClientCell(
  entry: ClientEntry,
  scenario: ClientScenario,
  options: MatrixOptions & { callTimeoutMs?: number } = {},
): Promise<JudgedCell> {
  const started = Date.now();
  const base = { implementation: entry.name, scenario: scenario.name, reconnects: [], trace: [] };
  if (scenario.notApplicable || !scenario.run) {
    return {
      ...base,
      verdict: 'n/a',
      observed: 'not run',
      reason: scenario.notApplicable ?? 'no client scenario',
      ms: 0,
    };
  }
  const keepAliveMs = options.keepAliveMs ?? 100;
  const retention = options.retention ?? 16;
  const timeoutMs = options.timeoutMs ?? 2000;
  const callTimeoutMs = options.callTimeoutMs ?? scenario.callTimeoutMs ?? CLIENT_CALL_TIMEOUT_MS;
  const adapter = entry.make();
  const why = scenario.requires?.(adapter) ?? null;
  if (why !== null) return { ...base, verdict: 'n/a', observed: 'not run', reason: why, ms: 0 };
  const control = new HoldControl();
  const net = new FaultNetwork();
  const replay = new ReplayPause();
  const tracks = new Map<number, string[]>();
  const failures: StreamResumptionError[] = [];
  const abort = new AbortController();
  const progress: Delivered[] = [];
  const progressWaiters = new Map<number, () => void>();
  let result: Delivered | null = null;
  let callError: unknown = null;
  let callDone: Promise<void> = Promise.resolve();
  let client: DrivenClient | undefined;
  let verdict: CellVerdict;
  let observed: string;
  try {
    const url = await adapter.start({
      control,
      keepAliveMs,
      retention,
      ...(scenario.storeDelayMs !== undefined
        ? {
            storeDelayMs: scenario.storeDelayMs,
            replayFence: false,
            ...(scenario.pauseReplay ? { onReplayRead: replay.hook } : {}),
          }
        : {}),
    });
    const fetchFn = continuityGuard(net.fetch, {
      readId: entry.readId,
      enforce: entry.guard,
      proofTimeoutMs: CLIENT_PROOF_BUDGET_MS,
      idleTimeoutMs: entry.guard ? keepAliveMs * 3 : 0,
      onFailure: (e) => {
        failures.push(e);
        if (entry.guard) abort.abort(e);
      },
      ...entry.guardOptions,
      onTrace: (line, stream) => {
        const lines = tracks.get(stream) ?? [];
        lines.push(JSON.stringify(line));
        tracks.set(stream, lines);
      },
    });
    client = await connectClient(entry.client, url, fetchFn);
    const c = client;
    let stallDone = false;
    const ctx: ClientContext = {
      adapter,
      control,
      net,
      replay,
      retention,
      timeoutMs,
      progressed: (i) =>
        progress.some((d) => d.index === i)
          ? Promise.resolve()
          : new Promise<void>((resolve, reject) => {
              const timer = setTimeout(
                () => reject(new NoAnswerError(`progress ${i} never came in ${timeoutMs} ms`)),
                timeoutMs,
              );
              progressWaiters.set(i, () => {
                clearTimeout(timer);
                resolve();
              });
            }),
      call: (args) => {
        callDone = c
          .callTool(args, {
            timeout: callTimeoutMs,
            signal: abort.signal,
            onprogress: (p) => {
              const parsed = typeof p.message === 'string' ? parseMessageText(p.message) : null;
              if (!parsed) return;
              progress.push({ tag: parsed.tag, index: parsed.index });
              if (scenario.name === 'reader-stall' && parsed.index === 1 && !stallDone) {
                // Unrelated work saturates the event loop while the stream waits for the
                // network (the seed: a concurrent large-context model call).
                stallDone = true;
                setTimeout(() => busyWait(keepAliveMs * 5), keepAliveMs / 2);
              }
              progressWaiters.get(parsed.index)?.();
            },
          })
          .then((r) => {
            const text = (r as { content?: { text?: string }[] }).content?.[0]?.text;
            const parsed = typeof text === 'string' ? parseResultText(text) : null;
            if (parsed) result = { tag: parsed.tag, index: 'result' };
          })
          .catch((e: unknown) => {
            callError = e;
          });
      },
    };
    const { n, after } = await scenario.run(ctx);
    await callDone;
    const got = [...progress, ...(result ? [result] : [])];
    const truth = groundTruth(owed('A', after, n), got, new Set(['A']));
    const resumed = net.gets.filter((g) => g.cursor !== null);
    const lastStatus = resumed.at(-1)?.status ?? null;
    const guardFailure = failures[0];
    const rec = {
      cursor: resumed.at(-1)?.cursor ?? null,
      status: lastStatus,
      ending: 'complete' as const,
      delivered: got,
    };
    if (result && truth.lost.length === 0 && !truth.reordered && truth.duplicated.length === 0) {
      verdict = truth.foreign.length ? 'leak' : 'honored';
      observed = `${describeTruth({ ...rec, status: 200 }, truth)}; resumes: ${resumed.length}`;
    } else if (entry.guard && guardFailure) {
      verdict = 'rejected';
      observed = `StreamResumptionError (${guardFailure.code}): ${guardFailure.message}`;
    } else if (result) {
      verdict = truth.foreign.length ? 'leak' : 'silent loss';
      observed = describeTruth({ ...rec, status: 200 }, truth);
    } else {
      const why = callError instanceof Error ? callError.message : String(callError);
      verdict = lastStatus === 200 ? 'silent loss' : 'hang';
      observed =
        `call ended only by its ${callTimeoutMs} ms timeout (${why.slice(0, 80)}); ` +
        `resumes: ${resumed.map((g) => g.status ?? 'none').join(',') || 'none'}; ` +
        `cursor-less GETs after the call: ${net.gets.filter((g) => g.cursor === null).length}`;
    }
    if (!entry.guard && failures.length > 0) {
      observed += `; the guard (observing only) would have raised: ${failures[0]!.code}`;
    }
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    verdict = e instanceof NoAnswerError ? 'hang' : 'error';
    observed =
      verdict === 'hang'
        ? `no answer within the bound: ${message}`
        : `could not run the scenario: ${message}`;
  } finally {
    replay.release();
    await control.releaseAll();
    abort.abort();
    await callDone.catch(() => {});
    if (client) await bounded(client.close(), 5000);
    await bounded(adapter.stop(), 5000);
  }
  // The call's story: the streams that were resumed (else the longest one).
  const all = [...tracks.values()];
  const resumedTracks = all.filter((t) => t.some((l) => l.includes('"type":"reconnect"')));
  const trace = resumedTracks.length
    ? resumedTracks.flat()
    : (all.sort((a, b) => b.length - a.length)[0] ?? []);
  const cell: JudgedCell = { ...base, verdict, observed, trace, ms: Date.now() - started };
  const negotiated = client?.protocolVersion();
  if (negotiated !== undefined) cell.protocolVersion = negotiated;
  if (trace.length > 0) cell.oracle = await judgeClientTrace(cell, entry);
  return cell;
}

/**
 * The oracle on a client row's trace: the trace carries the client's decisions (the guard's,
 * or a bare client's implicit "resumed" on every 200), so the oracle's per-reconnect verdicts
 * say whether the client accepted what it could not prove.
 */
async function judgeClientTrace(cell: JudgedCell, entry: ClientEntry): Promise<OracleView> {
  try {
    const report = await checkTrace(cell.trace, { idPattern: entry.pattern });
    const verdicts = report.reconnects.map((r) => r.verdict);
    const unsafe = verdicts.filter((v) => v === 'unsafe-accept').length;
    const bad = cell.verdict === 'silent loss' || cell.verdict === 'leak';
    const view: OracleView = {
      outcomes: report.reconnects.map((r) => r.expected),
      breaks: report.breaks.length,
      cursorAhead: report.cursorAhead.length,
      agrees: bad
        ? unsafe > 0 ||
          report.breaks.length > 0 ||
          report.reconnects.some((r) => r.expected === 'resumption-failed')
        : unsafe === 0,
      note: `client decisions judged: ${verdicts.join(', ') || 'no reconnect'}`,
    };
    if (!view.agrees) {
      view.note += bad
        ? '; oracle wrong: it did not flag an acceptance that lost messages'
        : '; oracle flags an unsafe acceptance where nothing was lost';
    }
    return view;
  } catch (e) {
    const error = e instanceof Error ? e.message : String(e);
    return { outcomes: [], breaks: 0, cursorAhead: 0, agrees: false, error };
  }
}

/** Runs every client scenario (or those in `only`) for every client row. */
export async function runClientMatrix(
  entries: readonly ClientEntry[] = CLIENT_IMPLEMENTATIONS,
  options: MatrixOptions & { only?: string[] } = {},
  onCell?: (cell: JudgedCell) => void,
): Promise<JudgedCell[]> {
  const cells: JudgedCell[] = [];
  for (const entry of entries) {
    for (const scenario of CLIENT_SCENARIOS) {
      if (options.only && !options.only.includes(scenario.name)) continue;
      const cell = await runClientCell(entry, scenario, options);
      cells.push(cell);
      onCell?.(cell);
    }
  }
  return cells;
}
