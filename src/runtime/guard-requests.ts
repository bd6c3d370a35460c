/**
 * The guard's request handling: which requests open a stream, which resume one, which are
 * refused before they are sent, and how each answer is judged. A POST opens a new stream (and a
 * re-issue the application marks, reissue-mark.ts, frees the failed stream it re-issues); a GET
 * with `Last-Event-ID` resumes the stream of its session that id belongs to; a GET without one
 * is the session's standalone stream, a reconnect that dropped its cursor (restored when it can
 * be told whose it is), or the retry of a failed call (settled). Every decision is the core's
 * (guard-core.ts); bodies are read by guard-body.ts.
 */
import type { StreamResumptionError } from '../reference.js';
import { failedAnswer, failedAnswers, isOwnId } from './call-endings.js';
import { settledResponse } from './call-settlement.js';
import { GuardBody, type Body } from './guard-body.js';
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
  scopeOf,
  withBody,
  type Call,
  type Input,
} from './guard-wire.js';
import { reissueMark } from './reissue-mark.js';

/** How long a refusal's body is read for its words (they arrive with the status, or not at all). */
const SERVER_WORDS_MS = 50;

/** The requests of one guard, sent through `fetchFn`. */
export class GuardRequests {
  constructor(
    protected readonly core: GuardCore,
    private readonly fetchFn: typeof fetch,
  ) {}

  /** The guarded `fetch`: every request of the MCP client comes here. */
  async guarded(input: Input, init?: RequestInit): Promise<Response> {
    const method = methodOf(input, init);
    if (method !== 'POST' && method !== 'GET') return this.fetchFn(input, init);
    const headers = headersOf(input, init);
    const scope = scopeOf(input, headers);
    if (method === 'POST') {
      // The application re-issues a failed call (it says so: reissue-mark.ts): its stream is
      // free. A call that only looks the same (same method and params) frees nothing (R3-2).
      this.reissued(reissueMark());
      return this.open(method, input, init, callOf(init?.body), false, scope);
    }
    const lastEventId = headers.get('last-event-id');
    if (lastEventId) return this.resumeFrom(lastEventId, input, init, scope);
    return this.cursorless(input, init, headers, scope);
  }

  /**
   * A GET without `Last-Event-ID`, in session `scope`, is, in this order:
   * - the reconnect of the session's standalone stream, interrupted before it received an id:
   *   sent as it is. It is never refused for a failure that belongs to a call (R3-5);
   * - the retry of a failed stream of the session whose call still waits for its answer: it is
   *   answered with the error response of every such call (each pending `callTool` rejects), or
   *   refused with the failure when the guard does not end calls (issue 38, two failed calls);
   * - the reconnect of the one interrupted stream of the session that holds a cursor, while the
   *   session's standalone stream is open (so it cannot be that stream opening): the SDK clients
   *   drop their cursor after an empty poll (docs/conformance.md, finding 23); the guard sends
   *   it with that stream's cursor, and judges it as that stream's reconnect;
   * - with more than one such stream, or without an open standalone stream, a reconnect whose
   *   stream cannot be told: the latest one fails as a dropped cursor (rule 0);
   * - otherwise the session's standalone stream opening.
   */
  private cursorless(
    input: Input,
    init: RequestInit | undefined,
    headers: Headers,
    scope: string,
  ): Response | Promise<Response> {
    const { core } = this;
    const ofScope = (list: Track[]) => list.filter((t) => t.scope === scope);
    const plain = ofScope(core.waitingPlain)[0];
    if (plain) {
      core.free(plain);
      return this.open('GET', input, init, null, true, scope);
    }
    const unsettled = this.unsettled(ofScope(core.failed));
    if (unsettled.length > 0) return failedAnswers(core, unsettled);
    const waiting = ofScope(core.waitingWithCursor);
    if (this.restores(waiting, scope)) {
      const id = waiting[0]!.lastId!;
      const restored = new Headers(headers);
      restored.set('last-event-id', id);
      return this.resumeFrom(id, input, { ...init, headers: restored }, scope, true);
    }
    const track = waiting.at(-1);
    if (track) {
      // A reconnect that dropped the cursor of an interrupted stream (rule 0).
      core.remove(core.waitingWithCursor, track);
      const e0 = core.close(track, false);
      if (e0) return failedAnswer(core, track, e0);
      track.reconnected = true;
      track.cursor = null;
      track.episodeT = core.now();
      const e = core.record(track, { type: 'reconnect', cursor: null });
      if (e) return failedAnswer(core, track, e);
    }
    return this.open('GET', input, init, null, true, scope);
  }

  /** Of the session's failed streams, those whose call still waits for its answer. */
  protected unsettled(failed: Track[]): Track[] {
    return failed.filter((t) => !t.settled);
  }

  /**
   * Whether a GET without `Last-Event-ID` is sent with the cursor of the session's interrupted
   * stream: the one that holds a cursor (`waiting`), while the standalone stream is open.
   */
  protected restores(waiting: Track[], scope: string): boolean {
    return waiting.length === 1 && this.standaloneOpen(scope);
  }

  /**
   * The application re-issues the call that failed with `failure` (it marked the request:
   * reissue-mark.ts): the failed streams of that call are freed, and their later GETs are no
   * longer refused. Nothing else frees a failed stream: not a call that only looks the same,
   * nor another session starting (R3-2).
   */
  private reissued(failure: StreamResumptionError | undefined) {
    const c = failure?.call;
    if (!c) return;
    const { core } = this;
    for (const t of [...core.failed]) {
      const f = core.failedCall(t);
      const same =
        f.requestId === c.requestId &&
        f.method === c.method &&
        f.stream === c.stream &&
        f.lastDelivered === c.lastDelivered;
      if (same) core.free(t);
    }
  }

  /** Whether session `scope`'s standalone stream is open now (being read). */
  private standaloneOpen(scope: string): boolean {
    const { core } = this;
    for (const t of core.tracks) {
      if (t.scope !== scope || !t.plain || t.failure !== null) continue;
      if (!core.waitingPlain.includes(t) && !core.waitingWithCursor.includes(t)) return true;
    }
    return false;
  }

  /**
   * A GET with `Last-Event-ID`: the reconnect of the stream of its session that id belongs to
   * (`restored`: the guard put the cursor back on a GET the client sent without one).
   */
  private resumeFrom(
    lastEventId: string,
    input: Input,
    init: RequestInit | undefined,
    scope: string,
    restored = false,
  ): Response | Promise<Response> {
    const { core } = this;
    // The SDK reconnecting after the event that ended its call: nothing to send.
    if (isOwnId(core, lastEventId) && core.enforce) return settledResponse();
    const known = core.holding(lastEventId, scope);
    if (known?.failure) {
      const read = core.readId(lastEventId);
      return failedAnswer(core, known, core.refuse(known, read?.seq ?? null, read?.stream));
    }
    if (!known) core.admit();
    const track = known ?? core.unseen(lastEventId, scope);
    const e = core.reconnect(track, lastEventId, restored);
    if (e) return failedAnswer(core, track, e);
    // A reconnect that failed the stream returned its error (failures are only set when
    // enforcing); and `resume` refuses a track failed while the headers were on their way.
    return this.resume(track, input, init);
  }

  /**
   * Sends a request with a bound on its headers: `ms` (0: none; `what` names it in the error),
   * or whoever `arm` hands the abort to (a resume's proof budget). An aborted request is given up
   * at once, whether or not `fetchFn` honours its signal; headers that still come are dropped.
   */
  private async send(
    input: Input,
    init: RequestInit | undefined,
    ms: number,
    what: string,
    arm?: (abort: (reason: unknown) => void) => void,
  ): Promise<Response> {
    if (ms === 0 && !arm) return this.fetchFn(input, init);
    // Not AbortSignal.any: on Node 20 every composite signal stays reachable from its sources
    // (about 1.9 KB per request, never freed). The caller's signal is forwarded by hand while
    // the headers are awaited; a guarded body listens to it itself (guard-body.ts).
    const bound = new AbortController();
    const outer = init?.signal ?? undefined;
    let giveUp!: (reason: unknown) => void;
    const givenUp = new Promise<never>((_, reject) => (giveUp = reject));
    const abort = (reason: unknown) => {
      bound.abort(reason);
      giveUp(reason);
    };
    const forward = () => abort(outer!.reason);
    if (outer?.aborted) forward();
    else outer?.addEventListener('abort', forward); // removed below, whatever happens
    const timer = ms > 0 ? setTimeout(() => abort(new Error(what)), ms) : undefined;
    arm?.(abort);
    const sent = this.fetchFn(input, { ...init, signal: bound.signal });
    try {
      return await Promise.race([sent, givenUp]);
    } catch (e) {
      // Headers that come after all go nowhere: their body is cancelled.
      sent.then(
        (r) => r.body?.cancel().catch(() => {}),
        () => {},
      );
      throw bound.signal.aborted && !outer?.aborted && timer
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
    const manual = this.manual(init);
    let response: Response;
    // No separate wait for headers: the episode's proof budget bounds the status line too. When
    // it runs out on a resume whose headers have not come (`giveUp`, from the budget's timer:
    // rule 1, no-response), the request is aborted and the call learns at once.
    const ours = (abort: (reason: unknown) => void) => {
      track.giveUp = abort;
    };
    try {
      response = await this.send(input, manual, 0, '', ours);
    } catch (e) {
      if (track.failure) return failedAnswer(core, track, track.failure);
      if (isPending(track.snapshot)) {
        const err = core.record(track, { type: 'disconnect' });
        if (err) return failedAnswer(core, track, err);
      }
      throw e;
    } finally {
      track.giveUp = undefined;
    }
    if (track.failure) {
      // The budget ran out while the headers were on their way.
      response.body?.cancel().catch(() => {});
      return failedAnswer(core, track, track.failure);
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
    const redirect = this.redirected(response);
    const type = response.headers.get('content-type');
    const isSse = isEventStreamType(type);
    const refused = (e: StreamResumptionError | null) => {
      if (!e) return response;
      response.body?.cancel().catch(() => {});
      return failedAnswer(core, track, e);
    };
    if (redirect) {
      // A redirect proves nothing about this server's log (rule 3); a runtime that hides the
      // status (opaqueredirect, or a redirect fetch followed anyway) is recorded as status 0.
      const status = isRedirectStatus(response.status) ? response.status : 0;
      return refused(core.record(track, { type: 'response', status }, { redirect: true }));
    }
    if (response.status !== 200)
      return refused(core.record(track, { type: 'response', status: response.status }));
    if (!isSse || !response.body) return this.nonSseResume(track, response, type, refused);
    track.held = true;
    track.heldAt = core.now();
    return withBody(response, this.body(track, response.body, init?.signal));
  }

  /** A GET sent with `redirect: 'manual'`: a redirect's answer is judged, never followed. */
  protected manual(init: RequestInit | undefined): RequestInit | undefined {
    return { ...init, redirect: 'manual' };
  }

  /** Whether an answer is a redirect (rule 3), whatever the runtime shows of it. */
  protected redirected(response: Response): boolean {
    return isRedirect(response);
  }

  /**
   * A resume answered 200 without an SSE body. Only a 200 with text/event-stream can prove a
   * resume: any other body is not read as SSE. The guard drops it (a disconnect after the 200):
   * the machine says unproven. (One method, so that a subclass can replace the judgment whole.)
   */
  protected nonSseResume(
    track: Track,
    response: Response,
    type: string | null,
    refused: (e: StreamResumptionError | null) => Response,
  ): Response {
    const { core } = this;
    const e = core.record(track, { type: 'response', status: 200 }, { contentType: type });
    if (e) return refused(e);
    if (!core.enforce) return response;
    return refused(core.record(track, { type: 'disconnect' }));
  }

  /**
   * A GET that opens a stream answered 200 without SSE: the SDK clients read any 200 GET body
   * as SSE, so it is never handed on. (One method, so that a subclass can replace the judgment
   * whole.)
   */
  protected nonSseOpen(response: Response, type: string): Response {
    response.body?.cancel().catch(() => {});
    throw new Error(
      `continuityGuard: a GET answered 200 with content type ${JSON.stringify(type)} is not an SSE stream; refused`,
    );
  }

  /** The guarded body of `track`'s stream. */
  protected body(track: Track, source: Body, signal: AbortSignal | null | undefined): Body {
    return GuardBody.stream(this.core, track, source, signal);
  }

  /** A request that may open a new stream (a POST, or a GET that resumes nothing). */
  private async open(
    method: string,
    input: Input,
    init: RequestInit | undefined,
    call: Call,
    plain: boolean,
    scope: string,
  ): Promise<Response> {
    const { core } = this;
    const { cfg } = core;
    core.admit();
    core.reserved++;
    let response: Response;
    try {
      response = await this.send(
        input,
        method === 'GET' ? this.manual(init) : init,
        cfg.firstHeadersTimeoutMs,
        `no response headers in ${cfg.firstHeadersTimeoutMs} ms (firstHeadersTimeoutMs)`,
      );
    } finally {
      core.reserved--;
    }
    const type = response.headers.get('content-type') ?? '';
    const isSse = isEventStreamType(type);
    if (method === 'GET' && response.status === 200 && !isSse)
      return this.nonSseOpen(response, type);
    // (Only POSTs and GETs come here: other methods are passed through by `guarded`.)
    if (response.status !== 200 || !isSse || !response.body) return response;
    const track = core.newTrack(call, scope);
    track.plain = plain;
    core.record(track, { type: 'open', status: 200 });
    return withBody(response, this.body(track, response.body, init?.signal));
  }
}
