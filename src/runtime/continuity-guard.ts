/**
 * `continuityGuard(fetch, options)`: a `fetch` wrapper for the MCP SDK client transport's
 * `fetch` option (`StreamableHTTPClientTransport(url, { fetch })`) that applies the client
 * machine's decision to every stream and every resumption, and errors a stream with
 * {@link StreamResumptionError} instead of letting a gap through.
 *
 * The decision is the project's machine (`model/client-machine.ts`) driven through the pure
 * `step`/`settle` of `model/run.ts`; the guard only turns HTTP and SSE into observations.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { clientMachine, type ClientMachine } from '../../model/client-machine.js';
import type { Observation } from '../../model/observations.js';
import type { Outcome, Reason } from '../../model/outcomes.js';
import { initialSnapshot, settle, stateOf, step, type ClientSnapshot } from '../../model/run.js';
import { StreamResumptionError } from '../reference.js';
import { CONTINUITY_ID_PATTERN, isReplayAck } from './continuity-store.js';
import { observationOf } from '../trace/checker.js';
import type { TraceLine } from '../trace/format.js';

/** Reads a sequence number (and the stream) out of an SSE id; `null`: not readable. */
export type IdReader = (id: string) => { seq: number; stream?: string } | null;

/**
 * The default id reader: a {@link ContinuityEventStore} id (`<epoch>-s<k>-<seq>`), or a plain
 * decimal id.
 */
export function defaultIdReader(id: string): { seq: number; stream?: string } | null {
  const m = CONTINUITY_ID_PATTERN.exec(id);
  if (m?.groups) return { seq: Number(m.groups.seq), stream: m.groups.stream! };
  return /^\d{1,15}$/.test(id) ? { seq: Number(id) } : null;
}

/** Builds an {@link IdReader} from a regular expression with named groups `seq` and `stream`. */
export function idReaderFromPattern(pattern: RegExp): IdReader {
  return (id) => {
    const m = pattern.exec(id);
    const seq = m?.groups?.seq;
    if (seq === undefined || !/^\d{1,15}$/.test(seq)) return null;
    const stream = m?.groups?.stream;
    return stream === undefined ? { seq: Number(seq) } : { seq: Number(seq), stream };
  };
}

/** A decision the guard took about one reconnect. */
export interface GuardDecision {
  outcome: Outcome;
  reason: Reason | null;
  /** The `Last-Event-ID` sent (`null`: none). */
  cursor: string | null;
}

/** Options of {@link continuityGuard}. */
export interface ContinuityGuardOptions {
  /** How to read sequence numbers out of event ids. Default {@link defaultIdReader}. */
  readId?: IdReader;
  /**
   * Idle timeout (ms) on bytes arriving: the timer runs only while the guard waits for the
   * network on behalf of a reader that asked for more, so a busy application (backpressure)
   * never trips it. When it fires, the stream is errored and the SDK reconnects with its cursor.
   * Must exceed the server's keepalive interval plus the longest single-write stall. Default 0
   * (off).
   */
  idleTimeoutMs?: number;
  /**
   * `'network'` (default): the idle timer restarts when it fires late because the event loop
   * was blocked, since the bytes may be waiting unread. `'wall'`: a naive timer that fires
   * anyway, mistaking application work for silence (kept to show the difference in tests).
   */
  idleClock?: 'network' | 'wall';
  /**
   * How long (ms) a 200 reconnect may stay unproven (no acknowledgment with a floor, no event)
   * before it is resumption-failed: the proof budget of an episode, measured from its first
   * reconnect. When the server ends an unproven resumed stream (MCP 2025-11-25 polling), the
   * client's next reconnect with the same cursor goes on with the same budget. Default 10000.
   */
  proofTimeoutMs?: number;
  /**
   * How long (ms) a reconnect may wait for the answer's headers before it counts as unanswered
   * (rule 1: resumption-failed) and is aborted. Default 10000.
   */
  responseTimeoutMs?: number;
  /** Largest single SSE event accepted (bytes); beyond it the stream is errored. Default 8 MiB. */
  maxEventBytes?: number;
  /**
   * `true` (default): error streams that cannot prove continuity. `false`: observe only (record
   * decisions and the trace, change nothing), as a bare client behaves.
   */
  enforce?: boolean;
  /** Called with every escalation (also when `enforce` is false). */
  onFailure?: (error: StreamResumptionError) => void;
  /** Called with every decision about a reconnect. */
  onDecision?: (decision: GuardDecision) => void;
  /**
   * Receives the guard's observations as trace lines (format v1), for `mcp-resumption check`,
   * with the number of the stream they belong to: one trace tells one stream's story (a request's
   * stream and its resumptions), so keep the lines of each stream apart.
   */
  trace?: (line: Record<string, unknown>, stream: number) => void;
  /** The machine to decide with (tests pass mutants). Default the client machine. */
  machine?: ClientMachine;
}

/** One followed stream: its machine snapshot, its last id, whether its request completed. */
interface Track {
  snapshot: ClientSnapshot;
  lastId: string | null;
  /** The JSON-RPC response of its request arrived: nothing more is owed. */
  completed: boolean;
  /** The stream ended or broke before completing. */
  interrupted: boolean;
  /** A reconnect's answer not yet fed to the machine (waits for a possible ack). */
  pendingStatus: number | null;
  failed: boolean;
  /** A reconnect was made on this track (decision lines follow reconnects only). */
  reconnected: boolean;
  /** The standalone GET stream: reconnects without a cursor until it received an id. */
  plain: boolean;
  /** Number of the stream, for the trace. */
  id: number;
  /** When the current episode of reconnects began (polls with one cursor share a budget). */
  episodeStart: number;
  /** Fails a poll whose client never reconnects before the episode's budget runs out. */
  pollTimer?: NodeJS.Timeout;
}

function headersOf(input: Parameters<typeof fetch>[0], init?: RequestInit): Headers {
  if (init?.headers) return new Headers(init.headers);
  if (input instanceof Request) return input.headers;
  return new Headers();
}

function methodOf(input: Parameters<typeof fetch>[0], init?: RequestInit): string {
  return (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
}

function serialize(e: EventSourceMessage): string {
  let out = '';
  if (e.event) out += `event: ${e.event}\n`;
  if (e.id !== undefined) out += `id: ${e.id}\n`;
  for (const line of e.data.split('\n')) out += `data: ${line}\n`;
  return out + '\n';
}

function isResponseMessage(data: string): boolean {
  if (!data.includes('"id"')) return false;
  try {
    const m = JSON.parse(data) as Record<string, unknown>;
    return 'id' in m && ('result' in m || 'error' in m) && !('method' in m);
  } catch {
    return false;
  }
}

/**
 * Wraps `fetchFn` so that every SSE stream the MCP client reads is checked by the client
 * machine: the first stream of a request must be gap-free; a resumption (GET with
 * `Last-Event-ID`) must be proven by a replay acknowledgment with a floor covering the cursor
 * or by a first event whose id is the cursor's successor; a reconnect without `Last-Event-ID`
 * after events were received is refused. When continuity cannot be proven the response body
 * errors with {@link StreamResumptionError} (the SDK reports it through `onerror`), or, for a
 * reconnect refused before any body, the fetch itself rejects with it.
 *
 * @category Runtime
 * @example
 * ```ts
 * import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
 * import { continuityGuard } from 'mcp-resumption/runtime';
 *
 * const transport = new StreamableHTTPClientTransport(new URL('http://127.0.0.1:8080/mcp'), {
 *   fetch: continuityGuard(fetch, {
 *     idleTimeoutMs: 60_000, // above the server's keepalive interval
 *     onFailure: (e) => console.error(`resumption failed (${e.message}): re-issue the call`),
 *   }),
 * });
 * ```
 */
export function continuityGuard(
  fetchFn: typeof fetch,
  options: ContinuityGuardOptions = {},
): typeof fetch {
  const readId = options.readId ?? defaultIdReader;
  const machine = options.machine ?? clientMachine;
  const enforce = options.enforce ?? true;
  const proofTimeoutMs = options.proofTimeoutMs ?? 10_000;
  const idleTimeoutMs = options.idleTimeoutMs ?? 0;
  const maxEventBytes = options.maxEventBytes ?? 8 * 1024 * 1024;
  const responseTimeoutMs = options.responseTimeoutMs ?? 10_000;
  const idleClock = options.idleClock ?? 'network';
  const t0 = Date.now();
  const trace = (track: Track, line: Record<string, unknown>) =>
    options.trace?.({ ...line, t: Date.now() - t0 }, track.id);
  let nextTrackId = 1;
  /** Tracks by the last id they delivered (the key a later Last-Event-ID names). */
  const byLastId = new Map<string, Track>();
  /**
   * Interrupted streams owe one reconnect each. Those that hold a cursor must send it; those
   * that never received an id (the standalone GET stream) reconnect without one. A cursor-less
   * GET is matched first to the latter: only when none is waiting does it drop a cursor.
   */
  const waitingWithCursor: Track[] = [];
  let waitingPlain = 0;

  /**
   * Feeds one observation to the track's machine; reports decisions; returns the error to raise
   * when the machine escalated (only when enforcing).
   */
  const observe = (track: Track, o: Observation): StreamResumptionError | null => {
    const prev = stateOf(track.snapshot);
    track.snapshot = step(track.snapshot, o, machine);
    const state = stateOf(track.snapshot);
    const ctx = track.snapshot.context;
    const wasPending = prev === 'reconnecting' || prev === 'awaitingProof';
    const escalated = (state === 'resumptionFailed' || state === 'sessionLost') && state !== prev;
    if ((wasPending && ctx.outcome !== null) || escalated) {
      const outcome = ctx.outcome ?? 'resumption-failed';
      if (enforce && track.reconnected) trace(track, { type: 'decision', outcome });
      options.onDecision?.({ outcome, reason: ctx.reason, cursor: track.lastId });
    } else if (state === 'polling' && prev !== 'polling' && enforce && track.reconnected) {
      // The server ended an unproven resumed stream: the guard waits for the next poll.
      trace(track, { type: 'decision', outcome: 'delayed' });
    }
    if (!escalated) return null;
    track.failed = true;
    const error = new StreamResumptionError(
      ctx.reason?.text ?? 'continuity cannot be proven',
      ctx.reason?.code ?? 'unproven',
      state === 'sessionLost' ? 'session-lost' : 'resumption-failed',
    );
    options.onFailure?.(error);
    return enforce ? error : null;
  };

  /**
   * Records a line of the trace (format v1) and feeds the machine its observation, through the
   * format's own mapping (`observationOf`), so what the guard decides on and what it records
   * cannot drift apart.
   */
  const record = (
    track: Track,
    line: Exclude<TraceLine, { type: 'decision' }>,
    extra: Record<string, unknown> = {},
  ): StreamResumptionError | null => {
    trace(track, { ...line, ...extra });
    return observe(track, observationOf(line) as Observation);
  };

  const flushResponse = (track: Track, floor?: number): StreamResumptionError | null => {
    if (track.pendingStatus === null) return null;
    const status = track.pendingStatus;
    track.pendingStatus = null;
    const e = record(track, {
      type: 'response',
      status,
      ...(floor !== undefined ? { floor } : {}),
    });
    if (!enforce) {
      // Observe-only: what a bare client decides is to accept any 200 stream.
      trace(track, { type: 'decision', outcome: status === 200 ? 'resumed' : 'resumption-failed' });
    }
    return e;
  };

  const guardBody = (
    track: Track,
    source: ReadableStream<Uint8Array>,
  ): ReadableStream<Uint8Array> => {
    const reader = source.getReader();
    const encoder = new TextEncoder();
    const decoder = new TextDecoder();
    let out: Uint8Array[] = [];
    let failure: Error | null = null;
    let first = true;
    let proofTimer: NodeJS.Timeout | undefined;

    const fail = (e: Error) => {
      failure ??= e;
    };
    const forward = (text: string) => out.push(encoder.encode(text));
    const parser = createParser({
      maxBufferSize: maxEventBytes,
      onError: (err) => {
        if (err.type === 'max-buffer-size-exceeded') {
          fail(new Error(`SSE event larger than ${maxEventBytes} bytes`));
        }
      },
      onRetry: (ms) => forward(`retry: ${ms}\n\n`),
      onComment: (c) => {
        if (failure) return;
        if (first && track.pendingStatus !== null) {
          // A keepalive before anything else: the answer carried no acknowledgment.
          const e = flush();
          if (e) return fail(e);
        }
        const e = record(track, { type: 'keepalive' });
        if (e) return fail(e);
        forward(`:${c}\n\n`);
      },
      onEvent: (ev) => {
        if (failure) return;
        const wasFirst = first;
        first = false;
        if (wasFirst && track.pendingStatus !== null) {
          let floor: number | undefined;
          if (!ev.id) {
            try {
              const msg: unknown = JSON.parse(ev.data);
              const f = isReplayAck(msg) ? msg.params.floor : undefined;
              if (typeof f === 'number' && Number.isSafeInteger(f)) floor = f;
            } catch {
              // not an acknowledgment
            }
          }
          const e = flush(floor);
          if (e) return fail(e);
          if (floor !== undefined) return forward(serialize(ev));
        }
        if (!ev.id) {
          // Id-less data: delivered, but no Last-Event-ID can name it (rule 0, rule 6).
          const e = record(track, { type: 'event' });
          if (e) return fail(e);
          return forward(serialize(ev));
        }
        const read = readId(ev.id);
        if (read === null) {
          if (track.reconnected && enforce) {
            return fail(
              new StreamResumptionError(
                `event id ${JSON.stringify(ev.id)} carries no readable sequence: continuity cannot be proven`,
                'unproven',
              ),
            );
          }
          // A first stream with opaque ids: nothing to check yet (it proves nothing, like a
          // keepalive); a later reconnect from such a cursor cannot be proven and is refused.
          const e = record(track, { type: 'keepalive' }, { opaqueId: ev.id });
          if (e) return fail(e);
          remember(ev.id);
          if (isResponseMessage(ev.data)) track.completed = true;
          return forward(serialize(ev));
        }
        const e = record(track, {
          type: 'event',
          id: read.seq,
          ...(read.stream ? { stream: read.stream } : {}),
        });
        if (e) return fail(e);
        clearTimeout(proofTimer);
        remember(ev.id);
        if (isResponseMessage(ev.data)) track.completed = true;
        forward(serialize(ev));
      },
    });

    /** The id the client now holds: a later `Last-Event-ID` naming it resumes this track. */
    function remember(id: string): void {
      if (track.lastId !== null && byLastId.get(track.lastId) === track) {
        byLastId.delete(track.lastId);
      }
      track.lastId = id;
      byLastId.set(id, track);
    }

    /** Feeds the held answer (with the acknowledgment's floor, if any) to the machine. */
    const flush = (floor?: number): StreamResumptionError | null => {
      const e = flushResponse(track, floor);
      if (stateOf(track.snapshot) !== 'awaitingProof') clearTimeout(proofTimer);
      return e;
    };

    const armProof = () => {
      clearTimeout(proofTimer);
      const left = Math.max(0, track.episodeStart + proofTimeoutMs - Date.now());
      proofTimer = setTimeout(() => {
        const held = track.pendingStatus !== null ? flush() : null;
        const e = held ?? observe(track, { type: 'PROOF_TIMEOUT' });
        if (!e) return;
        fail(e);
        // The trace has no proof-timer line: the stream is given up (a disconnect).
        trace(track, { type: 'disconnect' });
        isEnded = true;
        owesReconnect();
        controllerRef?.error(e);
        reader.cancel().catch(() => {});
      }, left);
      proofTimer.unref?.();
    };

    let controllerRef: ReadableStreamDefaultController<Uint8Array> | undefined;
    // The proof window opens with the answer: a 200 must prove itself within it.
    if (track.pendingStatus !== null && proofTimeoutMs > 0) armProof();

    let isEnded = false;
    const ended = (how: 'END' | 'DISCONNECT') => {
      clearTimeout(proofTimer);
      if (isEnded) return;
      isEnded = true;
      if (track.pendingStatus !== null) {
        const e = flush();
        if (e) fail(e);
      }
      if (!failure) {
        const e = record(track, { type: how === 'END' ? 'end' : 'disconnect' });
        if (e) fail(e);
      }
      if (stateOf(track.snapshot) === 'polling' && proofTimeoutMs > 0) armPoll(track);
      owesReconnect();
    };

    /** An interrupted stream owes one reconnect: with its cursor if it holds one. */
    function owesReconnect(): void {
      if (!track.completed) {
        track.interrupted = true;
        if (track.lastId !== null) waitingWithCursor.push(track);
        else waitingPlain += 1;
      } else if (track.plain) {
        waitingPlain += 1;
      }
    }

    return new ReadableStream<Uint8Array>(
      {
        start(controller) {
          controllerRef = controller;
        },
        async pull(controller) {
          for (;;) {
            if (out.length > 0) {
              for (const chunk of out) controller.enqueue(chunk);
              out = [];
              return;
            }
            if (failure) {
              clearTimeout(proofTimer);
              reader.cancel().catch(() => {});
              controller.error(failure);
              return;
            }
            let idle: NodeJS.Timeout | undefined;
            let settled = false;
            const read = reader.read();
            const timed =
              idleTimeoutMs > 0
                ? Promise.race([
                    read,
                    new Promise<'idle'>((r) => {
                      // The timer measures the network, not the application: when it fires
                      // late, the event loop was busy (the bytes may be waiting unread), so
                      // it starts again instead of declaring the stream idle.
                      const arm = () => {
                        if (settled) return;
                        const armedAt = Date.now();
                        idle = setTimeout(() => {
                          const late = Date.now() - armedAt - idleTimeoutMs;
                          const busy = late > Math.max(20, idleTimeoutMs / 4);
                          if (busy && idleClock === 'network') setImmediate(arm);
                          else r('idle');
                        }, idleTimeoutMs);
                      };
                      arm();
                    }),
                  ])
                : read;
            let result: Awaited<typeof read> | 'idle';
            try {
              result = await timed;
            } catch (e) {
              ended('DISCONNECT');
              controller.error(failure ?? e);
              return;
            } finally {
              settled = true;
              clearTimeout(idle);
            }
            if (result === 'idle') {
              read.catch(() => {});
              const e = record(track, { type: 'idle-timeout' });
              ended('DISCONNECT');
              reader.cancel().catch(() => {});
              controller.error(
                failure ?? e ?? new Error(`idle timeout: no bytes for ${idleTimeoutMs} ms`),
              );
              return;
            }
            if (result.done) {
              parser.feed(decoder.decode());
              ended('END');
              for (const chunk of out) controller.enqueue(chunk);
              out = [];
              if (failure) controller.error(failure);
              else controller.close();
              return;
            }
            parser.feed(decoder.decode(result.value, { stream: true }));
          }
        },
        cancel(reason) {
          clearTimeout(proofTimer);
          ended('DISCONNECT');
          return reader.cancel(reason);
        },
      },
      { highWaterMark: 0 },
    );
  };

  const newTrack = (): Track => ({
    snapshot: initialSnapshot(machine),
    lastId: null,
    completed: false,
    interrupted: false,
    pendingStatus: null,
    failed: false,
    reconnected: false,
    plain: false,
    id: nextTrackId++,
    episodeStart: Date.now(),
  });

  /**
   * A poll: the server ended the unproven resumed stream. The client should reconnect with the
   * same cursor; if the episode's budget runs out first, the episode has failed (rule 7).
   */
  const armPoll = (track: Track) => {
    clearTimeout(track.pollTimer);
    const left = Math.max(0, track.episodeStart + proofTimeoutMs - Date.now());
    track.pollTimer = setTimeout(() => {
      if (stateOf(track.snapshot) === 'polling') observe(track, { type: 'PROOF_TIMEOUT' });
    }, left);
    track.pollTimer.unref?.();
  };

  const guarded = async (
    input: Parameters<typeof fetch>[0],
    init?: RequestInit,
  ): Promise<Response> => {
    const method = methodOf(input, init);
    const headers = headersOf(input, init);
    const lastEventId = headers.get('last-event-id');
    let track: Track | null = null;

    if (method === 'GET' && lastEventId) {
      const read = readId(lastEventId);
      track = byLastId.get(lastEventId) ?? null;
      if (!track) {
        // A cursor from a stream the guard did not see: start from what the cursor claims.
        track = newTrack();
        track.snapshot = step(track.snapshot, { type: 'OPEN', status: 200 }, machine);
        trace(track, { type: 'open', status: 200, unseen: true });
        if (read) {
          trace(track, {
            type: 'event',
            id: read.seq,
            ...(read.stream ? { stream: read.stream } : {}),
            unseen: true,
          });
          track.snapshot = step(
            track.snapshot,
            { type: 'EVENT', id: read.seq, ...(read.stream ? { stream: read.stream } : {}) },
            machine,
          );
        }
        track.lastId = lastEventId;
      }
      // A poll (the same cursor after the server ended an unproven stream) goes on with its
      // episode and its budget; any other reconnect closes the one before and starts anew.
      clearTimeout(track.pollTimer);
      if (stateOf(track.snapshot) !== 'polling') {
        track.snapshot = settle(track.snapshot, machine);
        track.episodeStart = Date.now();
      }
      if (read === null) {
        const error = new StreamResumptionError(
          `cursor ${JSON.stringify(lastEventId)} carries no readable sequence: continuity cannot be proven`,
          'unproven',
        );
        options.onFailure?.(error);
        if (enforce) throw error;
      } else {
        track.reconnected = true;
        const e = record(track, {
          type: 'reconnect',
          cursor: read.seq,
          ...(read.stream ? { stream: read.stream } : {}),
        });
        if (e) throw e;
      }
      track.interrupted = false;
      const at = waitingWithCursor.indexOf(track);
      if (at >= 0) waitingWithCursor.splice(at, 1);
    } else if (method === 'GET' && waitingPlain > 0) {
      waitingPlain -= 1;
    } else if (method === 'GET' && waitingWithCursor.length > 0) {
      // A reconnect that dropped the cursor of an interrupted stream.
      track = waitingWithCursor.pop()!;
      clearTimeout(track.pollTimer);
      track.snapshot = settle(track.snapshot, machine);
      track.episodeStart = Date.now();
      track.reconnected = true;
      const e = record(track, { type: 'reconnect', cursor: null });
      if (e) throw e;
    }

    let response: Response;
    let answerTimer: NodeJS.Timeout | undefined;
    try {
      if (track) {
        // A reconnect must be answered within the bound: a server that accepts and never
        // answers is rule 1 (no response), not an endless wait.
        const bound = new AbortController();
        const signals = [bound.signal, ...(init?.signal ? [init.signal] : [])];
        answerTimer = setTimeout(
          () => bound.abort(new Error(`no answer in ${responseTimeoutMs} ms`)),
          responseTimeoutMs,
        );
        response = await fetchFn(input, { ...init, signal: AbortSignal.any(signals) });
      } else {
        response = await fetchFn(input, init);
      }
    } catch (e) {
      clearTimeout(answerTimer);
      if (track && ['reconnecting'].includes(stateOf(track.snapshot))) {
        const err = record(track, { type: 'disconnect' });
        if (err) throw err;
      }
      throw e;
    }
    clearTimeout(answerTimer);
    const isSse = (response.headers.get('content-type') ?? '').includes('text/event-stream');

    if (track) {
      if (response.status !== 200 || !isSse || !response.body) {
        track.pendingStatus = response.status;
        const e = flushResponse(track);
        if (e) {
          await response.body?.cancel().catch(() => {});
          throw e;
        }
        return response;
      }
      track.pendingStatus = 200;
      return new Response(guardBody(track, response.body), {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
      });
    }

    const opensStream = method === 'POST' || method === 'GET';
    if (opensStream && response.status === 200 && isSse && response.body) {
      // A new stream: a request's (POST) or the standalone one (GET without a cursor).
      const fresh = newTrack();
      trace(fresh, { type: 'open', status: 200 });
      fresh.snapshot = step(fresh.snapshot, { type: 'OPEN', status: 200 }, machine);
      if (method === 'GET') {
        fresh.completed = true;
        fresh.plain = true;
      }
      return new Response(guardBody(fresh, response.body), {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
      });
    }
    return response;
  };
  return guarded as typeof fetch;
}
