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
import {
  lacking,
  NoAnswerError,
  type CellVerdict,
  type Delivered,
  type ImplementationAdapter,
} from '../types.js';
import { packageVersion } from '../versions.js';

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
interface SeenGet {
  cursor: string | null;
  status: number | null;
}

/**
 * Resolves when the next callback pushed on `queue` is called; rejects with a
 * {@link NoAnswerError} saying `what` did not happen after `timeoutMs`.
 */
function nextCall(queue: (() => void)[], what: string, timeoutMs: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      const at = queue.indexOf(done);
      if (at >= 0) queue.splice(at, 1);
      reject(new NoAnswerError(`${what} in ${timeoutMs} ms`));
    }, timeoutMs);
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    queue.push(done);
  });
}

/** The network under the client: records GETs, can hold reconnects until the gate opens. */
class FaultNetwork {
  readonly gets: SeenGet[] = [];
  private gate: Promise<void> | null = null;
  private openGate: (() => void) | null = null;
  private waiters: { n: number; resolve: () => void }[] = [];
  private readonly sentWaiters: (() => void)[] = [];
  private readonly answerWaiters: (() => void)[] = [];

  /** Holds every GET carrying `Last-Event-ID` until {@link open}. */
  close(): void {
    this.gate ??= new Promise((r) => (this.openGate = r));
  }

  open(): void {
    this.openGate?.();
    this.gate = null;
    this.openGate = null;
  }

  /** Resolves once `n` GETs with a cursor or after a cut have been answered (bounded). */
  async answered(n: number, timeoutMs: number): Promise<void> {
    if (this.gets.filter((g) => g.status !== null).length >= n) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      new Promise<void>((resolve) => this.waiters.push({ n, resolve })),
      new Promise<void>((r) => (timer = setTimeout(r, timeoutMs))),
    ]);
    clearTimeout(timer);
  }

  /**
   * Resolves when the next GET carrying `Last-Event-ID` leaves for the server (past the gate),
   * before its answer; rejects with a {@link NoAnswerError} after `timeoutMs`.
   */
  resumeSent(timeoutMs: number): Promise<void> {
    return nextCall(this.sentWaiters, 'the client sent no GET with Last-Event-ID', timeoutMs);
  }

  /**
   * Resolves when the next GET carrying `Last-Event-ID` has its answer's headers (the server
   * registered the resumed stream before it answered); rejects with a {@link NoAnswerError}
   * after `timeoutMs`.
   */
  resumeAnswered(timeoutMs: number): Promise<void> {
    return nextCall(this.answerWaiters, 'no GET with Last-Event-ID was answered', timeoutMs);
  }

  readonly fetch: typeof fetch = async (input, init) => {
    const method = (init?.method ?? 'GET').toUpperCase();
    if (method !== 'GET') return fetch(input, init);
    const headers = new Headers(init?.headers);
    const seen: SeenGet = { cursor: headers.get('last-event-id'), status: null };
    this.gets.push(seen);
    if (seen.cursor !== null && this.gate) await this.gate;
    const answer = fetch(input, init);
    if (seen.cursor !== null) for (const w of this.sentWaiters.splice(0)) w();
    const res = await answer;
    seen.status = res.status;
    if (seen.cursor !== null) for (const w of this.answerWaiters.splice(0)) w();
    const done = this.gets.filter((g) => g.status !== null).length;
    for (const w of this.waiters.filter((w) => done >= w.n)) w.resolve();
    return res;
  };
}

/**
 * The first replay a slowed store reads, held between its read and its answer
 * (`StartOptions.onReplayRead`) until the scenario lets it go on: what the scenario does
 * meanwhile happens inside the window between the read and the registration of the resumed
 * stream, however loaded the machine.
 */
class ReplayPause {
  private goOn: (() => void) | null = null;
  private readonly readWaiters: (() => void)[] = [];

  /** The store's hook: holds the first replay until {@link release}; later ones go on. */
  readonly hook = (): Promise<void> => {
    if (this.goOn) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.goOn = resolve;
      for (const w of this.readWaiters.splice(0)) w();
    });
  };

  /** Resolves once the store holds a replay it has read; NoAnswerError after `timeoutMs`. */
  read(timeoutMs: number): Promise<void> {
    if (this.goOn) return Promise.resolve();
    return nextCall(this.readWaiters, 'the slowed store read no replay', timeoutMs);
  }

  /** Lets the held replay go on (its answer travels back, the stream is registered). */
  release(): void {
    this.goOn?.();
  }
}

/** What a client scenario works with. */
interface ClientContext {
  adapter: ImplementationAdapter;
  control: HoldControl;
  net: FaultNetwork;
  /** The slowed store's first replay, held after its read (scenarios with `pauseReplay`). */
  replay: ReplayPause;
  retention: number;
  timeoutMs: number;
  /** Resolves when the application has received progress message `i`. */
  progressed(i: number): Promise<void>;
  /** Starts the call. */
  call(args: CountArgs): void;
}

/** A client scenario: same names as the server scenarios where it applies. */
export interface ClientScenario {
  name: string;
  notApplicable?: string;
  /** Delay (ms) the server's event store adds to each operation (`StartOptions.storeDelayMs`). */
  storeDelayMs?: number;
  /** The slowed store holds its first replay after the read until `ctx.replay.release()`. */
  pauseReplay?: boolean;
  /** The call's timeout where the call is long by design (default {@link CLIENT_CALL_TIMEOUT_MS}). */
  callTimeoutMs?: number;
  /** Why it cannot run against the row's server (`null`: it can). */
  requires?(adapter: ImplementationAdapter): string | null;
  run?(ctx: ClientContext): Promise<{ n: number; after: number }>;
}

const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The guard's proof budget in the rows (`proofTimeoutMs`). It runs out by design only where a
 * resume is answered 200 and nothing proves it (the ring's `after-eviction` and
 * `empty-resume-twice`); elsewhere the first event must come within it, which on a loaded
 * machine took over 500 ms (load 11-16 on two cores): hence four times that.
 */
export const CLIENT_PROOF_BUDGET_MS = 2000;

/**
 * The call's timeout (`callTool`'s `timeout`): what ends a call that would otherwise hang. It
 * counts from the call's start and the budget from the first reconnect, so it leaves the budget
 * the time a loaded machine takes to reach that reconnect (about as long again): an unproven
 * resume is raised (guarded) or reported (bare) before the call ends.
 */
export const CLIENT_CALL_TIMEOUT_MS = 2 * CLIENT_PROOF_BUDGET_MS;

/**
 * `slow-store-replay` for the client rows: the server's event store is `storeDelayMs` away.
 * The server cuts the call's stream after message 3 and the client resumes from 3; message 4
 * is stored between the store's read of the replay and the registration of the resumed stream,
 * so the replay does not carry it and the resumed stream does not get it. A guarded client
 * must raise the gap as a StreamResumptionError; a bare one shows what the application gets.
 * The server runs without its `ReplayFence` here: the rows test the client against the window.
 *
 * `placement` says how message 4 gets into the window:
 * - `'paused'` (the matrix cell): the store holds the replay after its read
 *   (`StartOptions.onReplayRead`) while the tool emits message 4 (stored, on no registered
 *   stream); message 5 waits until the resumed GET is answered, i.e. the stream registered.
 *   No timer aims at the window: the cell is the same on a loaded machine. Needs a delay > 0
 *   (an unslowed store has no window to hold).
 * - `'timed'`: the tool is released `storeDelayMs / 2` after the resume GET left (the timing of
 *   the server scenario `slowStoreReplayScenario`), so message 4 lands in the window only when
 *   the timers keep to it; slow-store.test.ts measures how often it does at several delays.
 */
export function clientSlowStoreReplay(
  storeDelayMs: number,
  placement: 'paused' | 'timed' = 'paused',
): ClientScenario {
  if (placement === 'paused' && !(storeDelayMs > 0)) {
    throw new Error('a paused slow-store-replay needs storeDelayMs > 0 (no delay: no window)');
  }
  return {
    name: 'slow-store-replay',
    storeDelayMs,
    ...(placement === 'paused' ? { pauseReplay: true } : {}),
    requires: (a) => lacking(a, 'storeDelay'),
    async run(ctx) {
      if (placement === 'timed') {
        ctx.call({ tag: 'A', n: 6, holds: [4, 7], gapMs: 2 });
        await ctx.progressed(3);
        const sent = ctx.net.resumeSent(ctx.timeoutMs);
        ctx.adapter.dropConnections();
        await sent;
        await settle(storeDelayMs / 2);
        await ctx.control.releaseAll();
        return { n: 6, after: 0 };
      }
      ctx.call({ tag: 'A', n: 6, holds: [4, 5, 7], gapMs: 2 });
      await ctx.progressed(3);
      ctx.adapter.dropConnections();
      // The store has read the replay after 3 (empty) and holds it: message 4 lands now.
      await ctx.replay.read(ctx.timeoutMs);
      await ctx.control.release('A', 4);
      await ctx.control.waitEmitted('A', 4, ctx.timeoutMs);
      const registered = ctx.net.resumeAnswered(ctx.timeoutMs);
      ctx.replay.release();
      await registered;
      await ctx.control.releaseAll();
      return { n: 6, after: 0 };
    },
  };
}

/** The client scenarios, in matrix order. */
export const CLIENT_SCENARIOS: readonly ClientScenario[] = [
  {
    name: 'within-window',
    async run(ctx) {
      ctx.call({ tag: 'A', n: 8, holds: [4], gapMs: 2 });
      await ctx.progressed(3);
      ctx.adapter.dropConnections();
      await ctx.control.releaseAll();
      return { n: 8, after: 0 };
    },
  },
  {
    name: 'after-eviction',
    async run(ctx) {
      const n = ctx.retention + 8;
      ctx.call({ tag: 'A', n, holds: [4, n + 1], gapMs: 2 });
      await ctx.progressed(3);
      ctx.net.close();
      ctx.adapter.dropConnections();
      await ctx.control.release('A', 4);
      await ctx.control.waitEmitted('A', n, ctx.timeoutMs);
      ctx.net.open();
      await ctx.control.releaseAll();
      return { n, after: 0 };
    },
  },
  {
    name: 'after-restart',
    async run(ctx) {
      ctx.call({ tag: 'A', n: 6, holds: [4], gapMs: 2 });
      await ctx.progressed(3);
      ctx.net.close();
      await ctx.adapter.restart();
      ctx.net.open();
      await ctx.control.releaseAll();
      return { n: 6, after: 0 };
    },
  },
  { name: 'other-stream', notApplicable: 'the SDK client only sends cursors of the stream' },
  { name: 'other-session', notApplicable: 'the SDK client only sends cursors of the stream' },
  {
    name: 'same-ms-burst',
    notApplicable: 'the SDK reads a whole burst before a fault can fall between its events',
  },
  {
    name: 'empty-resume-twice',
    async run(ctx) {
      ctx.call({ tag: 'A', n: 6, holds: [4], gapMs: 2 });
      await ctx.progressed(3);
      const before = ctx.net.gets.length;
      ctx.adapter.dropConnections();
      // The resumed stream (and the standalone one) answered: nothing new is there yet.
      await ctx.net.answered(before + 2, ctx.timeoutMs);
      await settle(100);
      ctx.adapter.dropConnections();
      await ctx.net.answered(before + 4, ctx.timeoutMs);
      await ctx.control.releaseAll();
      return { n: 6, after: 0 };
    },
  },
  {
    name: 'reader-stall',
    // A long call by design (24 messages of 16 KB, a 600 ms pause, a 500 ms busy loop): over two
    // seconds on a loaded machine. The cell is honored or not; the timeout only ends a hang.
    callTimeoutMs: 5 * CLIENT_CALL_TIMEOUT_MS,
    async run(ctx) {
      // Soon after message 1 the application blocks its event loop for five keepalive
      // intervals (the seed's saturated client) while the stream waits for the network: the
      // guard's idle timer must not mistake it for silence.
      ctx.call({ tag: 'A', n: 24, pad: 16 * 1024, pauseMs: 600 });
      return { n: 24, after: 0 };
    },
  },
  { name: 'stale-connection', notApplicable: 'the SDK client closes a stream before resuming it' },
  clientSlowStoreReplay(25),
];

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
