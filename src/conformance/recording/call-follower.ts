/**
 * Follows one tool call across its streams (its first and every resumed one): records each item
 * in the trace, each numbered message as delivered, and keeps the cursor.
 */
import { type SseRead, type SseStream } from './sse-client.js';
import { type Delivered } from '../types.js';
import { decodeData, errorText, type TraceRecorder } from './recorder.js';

/** How reading a stream stopped. */
export type ReadStop = 'matched' | 'end' | 'timeout' | 'error';

/**
 * Follows one tool call across its streams: records every item in the trace and every
 * numbered message in `delivered`, and keeps the cursor (the last SSE id received).
 */
export class CallFollower {
  /** Every numbered message received, across streams, in order. */
  readonly delivered: Delivered[] = [];
  /** The last SSE id received (the cursor a reconnect sends). */
  cursor: string | null = null;
  /** Every SSE id received, in order. */
  readonly ids: string[] = [];
  /** Methods of the id-less notifications received that are not test messages (in order). */
  readonly notices: string[] = [];
  /**
   * The server's own answers that were errors (a JSON-RPC `error`, or a result with `isError`),
   * as one line each: a server that does not serve the test tool says so here, and the cell
   * must show it rather than "the stream ended".
   */
  readonly errors: string[] = [];

  constructor(readonly trace: TraceRecorder) {}

  /** Records the opening of the call's first stream. */
  open(status: number): void {
    this.trace.write({ type: 'open', status });
  }

  /**
   * Reads `stream` until `until(delivered)` holds, the stream ends, or nothing arrives for
   * `idleMs`. `firstStream` tells the trace whether any id is acceptable (see
   * {@link TraceRecorder.idFields}); `sink` receives what this stream delivered.
   */
  async read(
    stream: SseStream,
    until: (d: Delivered[]) => boolean,
    idleMs: number,
    firstStream: boolean,
    sink: Delivered[] = [],
    maxReadMs = 5000,
  ): Promise<ReadStop> {
    if (until(this.delivered)) return 'matched';
    // Only events count as progress: keepalives must not keep a silent stream "alive" forever,
    // and an endless stream of events is cut at the read's overall bound.
    let lastProgress = Date.now();
    const deadline = lastProgress + maxReadMs;
    for (;;) {
      if (Date.now() > deadline) {
        this.trace.write({ type: 'idle-timeout', bound: maxReadMs });
        return 'timeout';
      }
      const left = Math.min(lastProgress + idleMs, deadline) - Date.now();
      const r: SseRead = left > 0 ? await stream.next(left) : { kind: 'timeout' };
      if (r.kind === 'end') {
        this.trace.write({ type: 'end' });
        return 'end';
      }
      if (r.kind === 'timeout') {
        this.trace.write({ type: 'idle-timeout' });
        return 'timeout';
      }
      if (r.kind === 'error') {
        this.trace.write({ type: 'disconnect', error: r.message.slice(0, 200) });
        return 'error';
      }
      this.record(r, firstStream, sink);
      if (r.kind === 'event') lastProgress = Date.now();
      if (until(this.delivered)) return 'matched';
    }
  }

  /** Records one SSE item. */
  record(r: SseRead, firstStream: boolean, sink: Delivered[]): void {
    if (r.kind === 'comment' || r.kind === 'retry') {
      if (r.kind === 'comment') this.trace.write({ type: 'keepalive' });
      return;
    }
    if (r.kind !== 'event') return;
    const decoded = decodeData(r.data);
    if (decoded.kind === 'other') {
      const said = errorText(r.data);
      if (said !== null) this.errors.push(said);
    }
    if (r.id === undefined || r.id === '') {
      this.trace.write({ type: 'keepalive', kind: decoded.kind });
      if (decoded.kind === 'other' && decoded.method !== undefined)
        this.notices.push(decoded.method);
      if (decoded.kind === 'message') {
        this.delivered.push(decoded.delivered);
        sink.push(decoded.delivered);
      }
      return;
    }
    this.trace.write({
      type: 'event',
      ...this.trace.idFields(r.id, firstStream),
      kind: decoded.kind === 'message' ? String(decoded.delivered.index) : decoded.kind,
      // The call's response: `check --strict` tells a finished call from a dropped one by it.
      ...(decoded.kind === 'message' && decoded.delivered.index === 'result'
        ? { response: true }
        : {}),
    });
    this.cursor = r.id;
    this.ids.push(r.id);
    if (decoded.kind === 'message') {
      const d: Delivered = { ...decoded.delivered, id: r.id };
      this.delivered.push(d);
      sink.push(d);
    }
  }
}
