/**
 * The guarded body of one SSE stream: it reads the server's bytes, parses them
 * (eventsource-parser), hands every SSE item to the core (guard-core.ts) as a wire fact, and
 * passes on only what the core accepted. A failure stops the body before anything after it is
 * handed on; a stream that owed its call a response ends with the call's error response.
 */
import { createParser, type EventSourceMessage, type EventSourceParser } from 'eventsource-parser';
import { StreamResumptionError } from '../reference.js';
import { ownId, settlement } from './call-endings.js';
import { settlementEvent } from './call-settlement.js';
import type { GuardCore } from './guard-core.js';
import type { Track } from './guard-track.js';
import { ChunkText, SseLines } from './id-only-blocks.js';
import {
  ackStatement,
  answers,
  isMessageEvent,
  mayHoldIdKey,
  responseIn,
  serialize,
  utf8,
  type AckStatement,
} from './guard-wire.js';

/**
 * What an event is to the call of its stream: its own response (`result`, `error`), a response
 * the SDK would read that answers another request (`foreign`), or neither (`null`).
 */
type Answer = 'result' | 'error' | 'foreign' | null;

/** An SSE body, the server's or the guarded one. */
export type Body = ReadableStream<Uint8Array>;
type Controller = ReadableStreamDefaultController<Uint8Array>;
type ReadResult = Awaited<ReturnType<ReadableStreamDefaultReader<Uint8Array>['read']>>;

/** A read of the source, raced against the idle timer when one is set. */
interface TimedRead {
  result: Promise<ReadResult | 'idle'>;
  /** Stops the timer (the read settled). */
  clear: () => void;
}

/** One guarded body: build it with {@link GuardBody.stream}. */
export class GuardBody {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly encoder = new TextEncoder();
  private readonly decoder = new ChunkText();
  private readonly parser: EventSourceParser;
  private readonly lines: SseLines;
  /** Text accepted and not yet handed on: one chunk per read, not one per event. */
  private out: string[] = [];
  /** What the parser reported of the latest text, in order: events, comments, retries. */
  private items: (EventSourceMessage | string)[] = [];
  /** An item of the latest text is handed on changed (a clamped `retry:`). */
  private changed = false;
  /**
   * `id"` was seen so many times in the text fed to the parser and not yet matched by an event
   * whose data holds `"id"` (an upper bound: a response's data holds `"id"`, hence `id"`, so
   * none can be missed while it is 0). The text is searched for `id"`, not `"id"`: a search
   * starts at each place the pattern's first character is, and JSON text is full of quotes
   * (about five times fewer stops on MCP notifications, bench/guard.ts).
   */
  private idQuotes = 0;
  /** The text after the last block handed on: the start of the block being read. */
  private tail = '';
  /** The tail's comments or retries were handed on already: its text is not handed on. */
  private tailHandedOn = false;
  protected failure: Error | null = null;
  private isEnded = false;
  private controllerRef: Controller | undefined;
  /** The application gave the body up (an abort, a cancel): no call is waiting on it. */
  private abandoned = false;

  protected constructor(
    protected readonly core: GuardCore,
    protected readonly track: Track,
    source: Body,
    private readonly signal?: AbortSignal | null,
  ) {
    this.reader = source.getReader();
    const cfg = core.cfg;
    this.parser = createParser({
      maxBufferSize: cfg.maxEventBytes,
      onError: (err) => {
        if (err.type === 'max-buffer-size-exceeded') this.stop(this.tooLarge());
      },
      onRetry: (ms) => this.onRetry(ms),
      onComment: (c) => this.onComment(c),
      onEvent: (ev) => this.onEvent(ev),
    });
    this.lines = new SseLines(cfg.maxEventBytes);
    // The caller aborts (the SDK closing its transport): the body is given up.
    signal?.addEventListener('abort', this.abort, { once: true });
    track.giveUp = (e) => this.giveUp(e);
  }

  /** The guarded body of `source`, the stream of `track`. */
  static stream(core: GuardCore, track: Track, source: Body, signal?: AbortSignal | null): Body {
    const body = new this(core, track, source, signal);
    return new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          body.controllerRef = controller;
        },
        pull: (controller) => body.pull(controller),
        cancel: (reason) => body.cancel(reason),
      },
      { highWaterMark: 0 },
    );
  }

  /**
   * An event over `maxEventBytes`, given up unread: the stream keeps the cause, so that a later
   * failure of its resume names it rather than "no response" (the server did answer).
   */
  private tooLarge(): Error {
    this.track.tooLarge = this.core.cfg.maxEventBytes;
    return new Error(this.tooLargeText());
  }

  private tooLargeText(): string {
    return `SSE event larger than ${this.core.cfg.maxEventBytes} bytes`;
  }

  /** The first error wins; `null` (nothing went wrong) changes nothing. */
  private stop(e: Error | null): void {
    this.failure ??= e;
  }

  /**
   * Ends the body on its failure: with the call's error response and a clean end when the
   * stream owed its call a response (the SDK rejects the call at once), else with the error.
   */
  private failWith(controller: Controller, e: unknown): void {
    const ending = settlement(this.core, this.track, e);
    if (!ending) return controller.error(e);
    try {
      controller.enqueue(
        this.encoder.encode(settlementEvent(ending, ownId(this.core, this.track.id))),
      );
      controller.close();
    } catch {
      // Already closed or errored (the caller cancelled the body): nothing is waiting.
    }
  }

  private forward(item: EventSourceMessage | string): void {
    this.items.push(item);
  }

  /** Every SSE item first feeds a held answer: no item can skip or postpone the first-event check. */
  private first(ack?: AckStatement): void {
    if (this.track.held) this.stop(this.core.answer(this.track, ack));
  }

  /**
   * The stream failed through another request (a later reconnect closed this one's window, or
   * a refused GET): this body, still open, hands on nothing more.
   */
  private refusedElsewhere(): void {
    this.stop(this.track.failure); // (only set when enforcing)
  }

  /**
   * What `ev` is to the stream's call (asked once per event, before it is judged): read as the
   * SDK clients read it (`responseIn`, only under the event type they read), a response is the
   * call's own only when its id answers the call's request id; a stream with no request (a
   * stream the guard did not see open) takes any response as its own.
   */
  private answerIn(ev: EventSourceMessage): Answer {
    // (Only text that may hold the key `id` is parsed: most events skip the JSON parse.)
    if (this.idQuotes === 0 || !mayHoldIdKey(ev.data)) return null;
    this.idQuotes--;
    if (!isMessageEvent(ev.event)) return null;
    const read = responseIn(ev.data);
    if (read === null) return null;
    const request = this.track.request;
    if (request === null || answers(read.id, request.id)) return read.kind;
    return 'foreign';
  }

  /**
   * The response arrived: nothing more is owed, no reconnect can come for this stream. After an
   * error response, SDK 1.x reconnects anyway (it stops only after a result), naming the last
   * id of the stream: an id-only event with the guard's own id goes on after the response, so
   * that reconnect is the guard's, answered 405 without a request (for SDK 2.x, which stops
   * after either, it changes nothing). Only a request's stream that delivered ids gets it:
   * without one the SDK does not reconnect it.
   */
  private responded(answer: Answer): void {
    this.track.completed = true;
    // (Not on the standalone stream: a 405 to its reconnect would end it for good.)
    const marked = answer === 'error' && !this.track.plain && this.track.lastId !== null;
    if (marked && this.core.enforce) {
      this.changed = true;
      this.forward(`id: ${ownId(this.core, this.track.id)}\ndata: \n\n`);
    }
    if (!this.track.plain) this.core.free(this.track);
  }

  /**
   * A response to another request: the SDK would take it as this stream's answer (it stops
   * reconnecting the stream) and hand it to whichever call has that id. It is not handed on;
   * an id it carries goes on alone (an id-only event), so the SDK's cursor stays the guard's.
   */
  private withheld(ev: EventSourceMessage): void {
    this.changed = true;
    if (ev.id) this.forward(`id: ${ev.id}\ndata: \n\n`);
  }

  private onRetry(ms: number): void {
    this.changed = true;
    this.forward(`retry: ${this.clampRetry(ms)}\n\n`);
  }

  /** A server's `retry:` as the guard hands it on: within `minRetryMs` and `maxRetryMs`. */
  protected clampRetry(ms: number): number {
    const { cfg } = this.core;
    return Math.min(cfg.maxRetryMs, Math.max(cfg.minRetryMs, ms));
  }

  protected onComment(c: string): void {
    this.refusedElsewhere();
    if (this.failure) return;
    // A comment is not the answer's first block (rule 5.1, review S7): it states nothing, so
    // the answer stays held for the first event or message, which may be the acknowledgment.
    // While it is held, the comment gets no line of its own: the held 200's line, written when
    // that block comes, carries the time its headers came, and a keepalive line before it
    // would make the trace's times go back. Its budget is still checked at the comment's time.
    if (this.track.held) this.stop(this.core.outOfBudget(this.track, this.core.now()));
    else this.stop(this.core.record(this.track, { type: 'keepalive' }));
    this.forward(`:${c}\n\n`);
  }

  private onEvent(ev: EventSourceMessage): void {
    const { core, track } = this;
    this.refusedElsewhere();
    if (this.failure) return;
    const ack = track.held ? ackStatement(ev) : undefined;
    this.first(ack);
    if (this.failure) return;
    if (ack !== undefined) return this.forward(ev);
    if (!ev.id) {
      // Id-less data: delivered, but no Last-Event-ID can name it (rule 0, rule 6). It may
      // be the response itself (a 2026-07-28 server sends no ids).
      // (The standalone stream stays followed until it ends: it reconnects without a cursor.)
      const answer = track.plain ? null : this.answerIn(ev);
      const response = answer === 'result' || answer === 'error';
      this.stop(core.record(track, response ? { type: 'event', response } : { type: 'event' }));
      if (this.failure) return;
      if (answer === 'foreign') return this.withheld(ev);
      this.forward(ev);
      if (response) this.responded(answer);
      return;
    }
    const answer = this.answerIn(ev);
    const response = answer === 'result' || answer === 'error';
    const read = core.readId(ev.id);
    if (read === null) {
      if (track.reconnected && core.enforce) return this.unreadableId(ev.id);
      // A first stream with opaque ids: nothing to check yet (it proves nothing, like a
      // keepalive); a later reconnect from such a cursor cannot be proven and is refused.
      this.stop(core.record(track, { type: 'keepalive' }, { opaqueId: ev.id }));
    } else this.stop(this.judge(read.seq, read.stream, response));
    if (this.failure) return;
    core.remember(track, ev.id);
    if (answer === 'foreign') return this.withheld(ev);
    this.forward(ev);
    if (response) this.responded(answer);
  }

  /** Judges an event whose id was read (the core's {@link GuardCore.event}). */
  protected judge(
    seq: number,
    stream: string | undefined,
    response: boolean,
  ): StreamResumptionError | null {
    return this.core.event(this.track, seq, stream, response);
  }

  /** A resumed stream's event whose id carries no sequence: nothing can prove it follows. */
  private unreadableId(id: string): void {
    const e = new StreamResumptionError(
      `event id ${JSON.stringify(id)} carries no readable sequence: continuity cannot be proven`,
      'unproven',
      'resumption-failed',
      this.core.failedCall(this.track),
    );
    this.core.options.onFailure?.(e);
    this.stop(this.core.fail(this.track, e));
  }

  private feed(text: string): void {
    let lines = '';
    try {
      lines = this.lines.push(text);
      // (Lines come whole, and `id"` holds no line end: none is cut between two texts.)
      // (Counted by `split`, the same count as an `indexOf` loop, matches never overlapping,
      // and a little cheaper on text without one.) A key written with an escape (`"\u0069d"`)
      // holds `\u006` (see `mayHoldIdKey`).
      this.idQuotes += lines.split(this.idMark()).length - 1;
      this.idQuotes += lines.split('\\u006').length - 1;
      this.parser.feed(lines);
    } catch (e) {
      // (SseLines refuses a line over the bound with the parser's words.)
      const over = (e as Error).message === this.tooLargeText();
      this.stop(over ? this.tooLarge() : (e as Error));
    }
    this.handOn(lines);
  }

  /** What the text is searched for to count the events that may be responses (`idQuotes`). */
  protected idMark(): string {
    return 'id"';
  }

  /**
   * Hands on what the parser accepted of `lines` (the text it was just fed). When every block
   * that ended in it was accepted as it came (no failure, no clamped retry), the server's own
   * text up to the end of the last whole block goes on, and the block still being read waits
   * for its end: nothing of an event reaches the reader before the guard accepted it. Otherwise
   * the accepted items go on written anew, as SSE. A comment or retry in the unfinished block
   * goes on at once, written anew, and that block's text then never goes on as it came.
   */
  private handOn(lines: string): void {
    const { tailCallbacks, retry } = this.lines;
    const boundary = this.boundary(lines);
    this.refusedElsewhere();
    const items = this.items;
    this.items = [];
    // (A retry line goes on clamped, or not at all when the parser refused it: never as it came.)
    const asCame = !this.failure && !this.changed && !retry && !this.tailHandedOn;
    this.changed = false;
    if (boundary < 0) {
      // No block ended: anything reported is a comment or retry of the unfinished one.
      if (items.length > 0 || this.failure) {
        this.tailHandedOn = true;
        this.tail = '';
        this.out.push(written(items));
      } else if (!this.tailHandedOn) this.tail += lines;
    } else {
      // A text that ends in a lone CR would leave the reader's parser waiting for the next
      // byte (a CRLF?) before it dispatches the last event: such a text goes on written anew.
      const loneCr = lines.charCodeAt(boundary - 1) === 0x0d;
      // (The held start and the rest go on as two parts: `utf8` writes them without a join.)
      if (!asCame || tailCallbacks || loneCr) this.out.push(written(items));
      else this.out.push(this.tail, lines.slice(0, boundary));
      this.tailHandedOn = tailCallbacks;
      this.tail = tailCallbacks ? '' : lines.slice(boundary);
    }
    // (A block of lines the parser ignores, without end: its text is not kept without bound.)
    if (this.tail.length > this.core.cfg.maxEventBytes) {
      this.tail = '';
      this.tailHandedOn = true;
    }
  }

  /** The end, in `lines`, of the last whole block in it (`-1`: none): the text up to it may go on. */
  protected boundary(_lines: string): number {
    return this.lines.boundary;
  }

  private ended(how: 'end' | 'disconnect'): void {
    if (this.isEnded) return;
    this.isEnded = true;
    this.release();
    if (!this.failure) this.first();
    if (!this.failure) this.stop(this.core.record(this.track, { type: how }));
    this.stop(this.core.streamEnded(this.track, this.abandoned));
  }

  private readonly abort = (): void => {
    this.abandoned = true;
    this.reader.cancel(this.signal!.reason).catch(() => {});
  };

  private release(): void {
    this.signal?.removeEventListener('abort', this.abort);
  }

  /** The budget ran out on this stream while it is read: it ends with `e`. */
  private giveUp(e: StreamResumptionError): void {
    this.stop(e);
    this.ended('disconnect'); // (failed: it records nothing)
    this.failWith(this.controllerRef!, e);
    this.reader.cancel().catch(() => {});
  }

  private cancel(reason: unknown): Promise<void> {
    this.abandoned = true;
    this.ended('disconnect');
    return this.reader.cancel(reason);
  }

  /** A read of the source, raced against the idle timer (`idleTimeoutMs`) when it is set. */
  private timedRead(read: Promise<ReadResult>): TimedRead {
    const { idleTimeoutMs, idleClock } = this.core.cfg;
    if (idleTimeoutMs <= 0) return { result: read, clear: () => {} };
    let idle: NodeJS.Timeout | undefined;
    let settled = false;
    const timer = new Promise<'idle'>((r) => {
      // The timer measures the network, not the application: when it fires late, the event
      // loop was busy (the bytes may be waiting unread), so it starts again instead of
      // declaring the stream idle.
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
    });
    const clear = () => {
      settled = true;
      clearTimeout(idle);
    };
    return { result: Promise.race([read, timer]), clear };
  }

  private async pull(controller: Controller): Promise<void> {
    for (;;) {
      const parts = this.out;
      this.out = [];
      if (parts.some((part) => part.length > 0)) {
        controller.enqueue(utf8(this.encoder, parts));
        return;
      }
      if (this.failure) {
        this.ended('disconnect');
        this.reader.cancel().catch(() => {});
        this.failWith(controller, this.failure);
        return;
      }
      const read = this.reader.read();
      const timed = this.timedRead(read);
      let result: ReadResult | 'idle' | { broken: unknown };
      try {
        result = await timed.result;
      } catch (e) {
        result = { broken: e };
      } finally {
        timed.clear();
      }
      // Given up or cancelled while the read was pending: nothing it brought is judged (the
      // stream's disconnect is recorded; an event after it would move the cursor past what the
      // reader got), and its controller is closed already.
      if (this.isEnded) return;
      if (result === 'idle') {
        read.catch(() => {});
        return this.idle(controller);
      }
      // The source broke: the body ends with the failure its disconnect made, else the error.
      if ('broken' in result) {
        this.ended('disconnect');
        return this.failWith(controller, this.failure ?? result.broken);
      }
      if (result.done) return this.done(controller);
      this.feed(this.decoder.push(result.value));
    }
  }

  /** No bytes for `idleTimeoutMs`: the stream is given up (the SDK reconnects with its cursor). */
  private idle(controller: Controller): void {
    // (No failure is set here: a failed body stops before its next read.)
    this.first();
    if (!this.failure) this.stop(this.core.record(this.track, { type: 'idle-timeout' }));
    this.ended('disconnect');
    this.reader.cancel().catch(() => {});
    this.failWith(
      controller,
      this.failure ?? new Error(`idle timeout: no bytes for ${this.core.cfg.idleTimeoutMs} ms`),
    );
  }

  /** The server ended the stream. */
  private done(controller: Controller): void {
    // (The flush completes no line, so nothing more is queued: `out` is empty here.)
    this.feed(this.decoder.end());
    this.ended('end');
    if (this.failure) this.failWith(controller, this.failure);
    else controller.close();
  }
}

/** Items written anew as SSE text. */
function written(items: (EventSourceMessage | string)[]): string {
  let text = '';
  for (const item of items) text += typeof item === 'string' ? item : serialize(item);
  return text;
}
