/**
 * The guard's request handling: which requests open a stream, which resume one, which are
 * refused before they are sent, and how each answer is judged. A POST opens a new stream (and a
 * re-issue frees the failed stream of the same call); a GET with `Last-Event-ID` resumes the
 * stream that id belongs to; a GET without one is the standalone stream, or a reconnect that
 * dropped its cursor. Every decision is the core's (guard-core.ts); bodies are read by
 * guard-body.ts.
 */
import type { StreamResumptionError } from '../reference.js';
import { settledResponse } from './call-settlement.js';
import { GuardBody } from './guard-body.js';
import type { GuardCore } from './guard-core.js';
import { isPending, type Track } from './guard-track.js';
import {
  callOf,
  headersOf,
  isEventStreamType,
  isRedirect,
  isRedirectStatus,
  methodOf,
  serverWords,
  withBody,
  type Call,
  type Input,
} from './guard-wire.js';

/** How long a refusal's body is read for its words (they arrive with the status, or not at all). */
const SERVER_WORDS_MS = 50;

/** The requests of one guard, sent through `fetchFn`. */
export class GuardRequests {
  constructor(
    private readonly core: GuardCore,
    private readonly fetchFn: typeof fetch,
  ) {}

  /** The guarded `fetch`: every request of the MCP client comes here. */
  async guarded(input: Input, init?: RequestInit): Promise<Response> {
    const { core } = this;
    const method = methodOf(input, init);
    const lastEventId = headersOf(input, init).get('last-event-id');
    if (method === 'POST') {
      const call = callOf(init?.body);
      // The application re-issued a failed call (or started a new session): its stream is free.
      for (const t of [...core.failed])
        if (call !== null && (call.key.startsWith('initialize ') || t.call === call.key))
          core.free(t);
      return this.open(method, input, init, call, false);
    }
    if (method !== 'GET') return this.fetchFn(input, init);
    if (lastEventId) return this.resumeFrom(lastEventId, input, init);
    // A GET without Last-Event-ID.
    const lastFailed =
      core.mutant === 'cursorless-retry-is-new' ? undefined : core.failed[core.failed.length - 1];
    if (lastFailed) return core.failedAnswer(lastFailed, core.refuse(lastFailed, null));
    const plain = core.waitingPlain.shift();
    if (plain) core.free(plain);
    else if (core.waitingWithCursor.length > 0) {
      // A reconnect that dropped the cursor of an interrupted stream (rule 0).
      const track = core.waitingWithCursor.pop()!;
      const e0 = core.close(track, false);
      if (e0) return core.failedAnswer(track, e0);
      track.reconnected = true;
      track.cursor = null;
      track.episodeT = core.now();
      const e = core.record(track, { type: 'reconnect', cursor: null });
      if (e) return core.failedAnswer(track, e);
    }
    return this.open(method, input, init, null, true);
  }

  /** A GET with `Last-Event-ID`: the reconnect of the stream that id belongs to. */
  private resumeFrom(
    lastEventId: string,
    input: Input,
    init: RequestInit | undefined,
  ): Response | Promise<Response> {
    const { core } = this;
    // The SDK reconnecting after the event that ended its call: nothing to send.
    if (core.isOwnId(lastEventId) && core.enforce) return settledResponse();
    const known = core.holding(lastEventId);
    if (known?.failure) {
      const read = core.readId(lastEventId);
      return core.failedAnswer(known, core.refuse(known, read?.seq ?? null, read?.stream));
    }
    if (!known) core.admit();
    const track = known ?? core.unseen(lastEventId);
    const e = core.reconnect(track, lastEventId);
    if (e) return core.failedAnswer(track, e);
    // A reconnect that failed the stream returned its error (failures are only set when
    // enforcing); and `resume` refuses a track failed while the headers were on their way.
    return this.resume(track, input, init);
  }

  /** Sends a request with a bound on its headers; `what` names the bound in the error. */
  private async send(
    input: Input,
    init: RequestInit | undefined,
    ms: number,
    what: string,
  ): Promise<Response> {
    if (ms === 0) return this.fetchFn(input, init);
    // Not AbortSignal.any: on Node 20 every composite signal stays reachable from its sources
    // (about 1.9 KB per request, never freed). The caller's signal is forwarded by hand while
    // the headers are awaited; a guarded body listens to it itself (guard-body.ts).
    const bound = new AbortController();
    const outer = init?.signal ?? undefined;
    const forward = () => bound.abort(outer!.reason);
    if (outer?.aborted) forward();
    else outer?.addEventListener('abort', forward); // removed below, whatever happens
    const timer = setTimeout(() => bound.abort(new Error(what)), ms);
    try {
      return await this.fetchFn(input, { ...init, signal: bound.signal });
    } catch (e) {
      throw bound.signal.aborted && !outer?.aborted
        ? new Error(`continuityGuard: ${what}`, { cause: e })
        : e;
    } finally {
      clearTimeout(timer);
      outer?.removeEventListener('abort', forward);
    }
  }

  /** A reconnect of `track`: sent with `redirect: 'manual'`, its answer judged by the machine. */
  private async resume(
    track: Track,
    input: Input,
    init: RequestInit | undefined,
  ): Promise<Response> {
    const { core } = this;
    const { cfg, mutant } = core;
    const manual = mutant === 'follows-redirects' ? init : { ...init, redirect: 'manual' as const };
    let response: Response;
    try {
      response = await this.send(
        input,
        manual,
        cfg.responseTimeoutMs,
        `no answer in ${cfg.responseTimeoutMs} ms`,
      );
    } catch (e) {
      if (isPending(track.snapshot)) {
        const err = core.record(track, { type: 'disconnect' });
        if (err) return core.failedAnswer(track, err);
      }
      throw e;
    }
    if (track.failure) {
      // The budget ran out while the headers were on their way.
      response.body?.cancel().catch(() => {});
      return core.failedAnswer(track, track.failure);
    }
    // A refusal's words say why (an evicted cursor, a conflict): read briefly, for the error.
    track.serverSaid =
      response.status !== 200 && !isRedirect(response)
        ? await serverWords(response, SERVER_WORDS_MS)
        : undefined;
    return this.judge(track, response, init);
  }

  /** The answer to a reconnect: only a 200 with an SSE body can go on to prove it. */
  private judge(track: Track, response: Response, init: RequestInit | undefined): Response {
    const { core } = this;
    const { mutant } = core;
    const redirect =
      mutant === 'follows-redirects' ? isRedirectStatus(response.status) : isRedirect(response);
    const type = response.headers.get('content-type');
    const isSse = isEventStreamType(type);
    const refused = (e: StreamResumptionError | null) => {
      if (!e) return response;
      response.body?.cancel().catch(() => {});
      return core.failedAnswer(track, e);
    };
    if (redirect) {
      // A redirect proves nothing about this server's log (rule 3); a runtime that hides the
      // status (opaqueredirect, or a redirect fetch followed anyway) is recorded as status 0.
      const status = isRedirectStatus(response.status) ? response.status : 0;
      return refused(core.record(track, { type: 'response', status }, { redirect: true }));
    }
    if (response.status !== 200)
      return refused(core.record(track, { type: 'response', status: response.status }));
    if (!isSse || !response.body) {
      if (mutant === 'non-sse-unjudged') return response;
      // Only a 200 with text/event-stream can prove a resume: any other body is not read as
      // SSE. The guard drops it (a disconnect after the 200): the machine says unproven.
      const e = core.record(track, { type: 'response', status: 200 }, { contentType: type });
      if (e) return refused(e);
      if (!core.enforce) return response;
      return refused(core.record(track, { type: 'disconnect' }));
    }
    track.held = true;
    return withBody(response, GuardBody.stream(core, track, response.body, init?.signal));
  }

  /** A request that may open a new stream (a POST, or a GET that resumes nothing). */
  private async open(
    method: string,
    input: Input,
    init: RequestInit | undefined,
    call: Call,
    plain: boolean,
  ): Promise<Response> {
    const { core } = this;
    const { cfg, mutant } = core;
    core.admit();
    core.reserved++;
    let response: Response;
    try {
      response = await this.send(
        input,
        method === 'GET' && mutant !== 'follows-redirects' ? { ...init, redirect: 'manual' } : init,
        cfg.firstHeadersTimeoutMs,
        `no response headers in ${cfg.firstHeadersTimeoutMs} ms (firstHeadersTimeoutMs)`,
      );
    } finally {
      core.reserved--;
    }
    const type = response.headers.get('content-type') ?? '';
    const isSse = isEventStreamType(type);
    if (method === 'GET' && response.status === 200 && !isSse && mutant !== 'non-sse-unjudged') {
      // The SDK clients read any 200 GET body as SSE: one that is not SSE is never handed on.
      response.body?.cancel().catch(() => {});
      throw new Error(
        `continuityGuard: a GET answered 200 with content type ${JSON.stringify(type)} is not an SSE stream; refused`,
      );
    }
    // (Only POSTs and GETs come here: other methods are passed through by `guarded`.)
    if (response.status !== 200 || !isSse || !response.body) return response;
    const track = core.newTrack(call);
    track.plain = plain;
    core.record(track, { type: 'open', status: 200 });
    return withBody(response, GuardBody.stream(core, track, response.body, init?.signal));
  }
}
