/**
 * The recording client: speaks MCP over real HTTP to an implementation, follows one tool call's
 * stream across reconnects, and records two things side by side: the trace (format v1, what a
 * client could observe, ids read through the implementation's id codec) and the ground truth
 * (which numbered messages arrived).
 */
import { isReplayAck, type ReplayAck } from '../../runtime/continuity-store.js';
import { request, type HttpAnswer, type StreamLimits } from './sse-client.js';
import { parseMessageText, parseResultText, TOOL_NAME, type CountArgs } from '../tool.js';
import {
  bodyExcerpt,
  Era2026Error,
  HarnessError,
  NoAnswerError,
  type Delivered,
  type IdCodec,
} from '../types.js';

/**
 * The protocol versions the recording client speaks, newest first. It asks for the first in
 * `initialize` (unless told otherwise) and speaks whichever of them the server answers: that
 * version goes into every later `MCP-Protocol-Version` header. Priming events and
 * server-initiated stream closes (polling) exist only from 2025-11-25.
 */
export const PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'] as const;

/** The newest protocol version the recording client speaks. */
export const PROTOCOL_VERSION = PROTOCOL_VERSIONS[0];

/** The protocol version in an `initialize` result message, if it is one. */
function negotiatedVersion(msg: unknown): string | undefined {
  const v = (msg as { result?: { protocolVersion?: unknown } } | null)?.result?.protocolVersion;
  return typeof v === 'string' ? v : undefined;
}

/** What one SSE message turned out to be. */
export type Decoded =
  | { kind: 'message'; delivered: Omit<Delivered, 'id'> }
  | { kind: 'priming' }
  | { kind: 'ack'; ack: ReplayAck }
  | { kind: 'other'; method?: string };

/** Decodes the data of one SSE event into a numbered message, a priming event, or else. */
export function decodeData(data: string): Decoded {
  if (data.trim() === '' || data.trim() === '{}') return { kind: 'priming' };
  let msg: unknown;
  try {
    msg = JSON.parse(data);
  } catch {
    return { kind: 'other' };
  }
  if (isReplayAck(msg)) return { kind: 'ack', ack: msg };
  const m = msg as {
    method?: string;
    params?: { message?: unknown };
    result?: { content?: { text?: unknown }[] };
  };
  if (m.method === 'notifications/progress' && typeof m.params?.message === 'string') {
    const p = parseMessageText(m.params.message);
    if (p) return { kind: 'message', delivered: { tag: p.tag, index: p.index } };
  }
  const text = m.result?.content?.[0]?.text;
  if (typeof text === 'string') {
    const r = parseResultText(text);
    if (r) return { kind: 'message', delivered: { tag: r.tag, index: 'result' } };
  }
  return m.method !== undefined ? { kind: 'other', method: m.method } : { kind: 'other' };
}

/**
 * The text of an error answer (a JSON-RPC `error`, or a tool result with `isError`) in one line,
 * `null` when `data` is not one.
 */
export function errorText(data: string): string | null {
  let msg: unknown;
  try {
    msg = JSON.parse(data);
  } catch {
    return null;
  }
  const m = msg as {
    error?: { code?: unknown; message?: unknown };
    result?: { isError?: unknown; content?: { text?: unknown }[] };
  } | null;
  if (m?.error !== undefined && m.error !== null) {
    const code = typeof m.error.code === 'number' ? `${m.error.code} ` : '';
    return bodyExcerpt(`error ${code}${String(m.error.message ?? '')}`);
  }
  if (m?.result?.isError === true) {
    const text = m.result.content?.[0]?.text;
    return bodyExcerpt(`isError result: ${typeof text === 'string' ? text : ''}`);
  }
  return null;
}

/** Records a trace in format v1 (one JSON object per line). */
export class TraceRecorder {
  readonly lines: string[] = [];
  private readonly t0 = Date.now();
  /** Opaque ids: the arrival ordinal of each id seen on an accepted first stream. */
  private readonly ordinals = new Map<string, number>();
  private nextOrdinal = 1;

  constructor(readonly codec: IdCodec) {}

  /** Appends one line. */
  write(line: Record<string, unknown>): void {
    this.lines.push(JSON.stringify({ ...line, t: Date.now() - this.t0 }));
  }

  /**
   * The trace fields of an SSE id: its sequence (and stream) through the codec. Opaque ids are
   * numbered by arrival on the first stream (where any id is accepted); on a resumed stream a
   * new opaque id carries no provable sequence and is recorded without `id`.
   */
  idFields(id: string, firstStream: boolean): Record<string, unknown> {
    const d = this.codec.decode(id);
    if (d) return d.stream === undefined ? { id: d.seq } : { id: d.seq, stream: d.stream };
    const known = this.ordinals.get(id);
    if (known !== undefined) return { id: known };
    if (firstStream) {
      const n = this.nextOrdinal++;
      this.ordinals.set(id, n);
      return { id: n };
    }
    return { opaqueId: id };
  }

  /** The trace fields of a cursor (`null` when it cannot be read). */
  cursorFields(id: string | null): Record<string, unknown> {
    if (id === null) return { cursor: null };
    const d = this.codec.decode(id);
    if (d) return d.stream === undefined ? { cursor: d.seq } : { cursor: d.seq, stream: d.stream };
    const known = this.ordinals.get(id);
    return { cursor: known ?? 0, opaqueCursor: id };
  }
}

/** The MCP session of the recording client. */
export class RecordingClient {
  sessionId: string | undefined;
  /** The version asked for in `initialize` (one of {@link PROTOCOL_VERSIONS}). */
  requestedVersion: string = PROTOCOL_VERSION;
  /** The version the server answered in `initialize` (`undefined` before it answered). */
  negotiatedVersion: string | undefined;
  /**
   * When set, request ids are the strings `<idPrefix><n>` instead of the integers `n` (the
   * control session's, so that they never equal a scenario client's).
   */
  idPrefix: string | undefined;
  private next = 1;

  /** The next JSON-RPC request id. */
  private nextRpcId(): number | string {
    const n = this.next++;
    return this.idPrefix === undefined ? n : `${this.idPrefix}${n}`;
  }

  /**
   * @param url The MCP endpoint.
   * @param timeoutMs Bound on each request (ms).
   * @param fetchFn The `fetch` the client sends with.
   * @param limits Bounds on each SSE stream it reads.
   */
  constructor(
    readonly url: string,
    readonly timeoutMs = 3000,
    /** The `fetch` the client sends with. */
    readonly fetchFn: typeof fetch = fetch,
    readonly limits: StreamLimits = {},
  ) {}

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    const h: Record<string, string> = {
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
      ...extra,
    };
    if (this.sessionId) {
      h['mcp-session-id'] = this.sessionId;
      h['mcp-protocol-version'] = this.negotiatedVersion ?? this.requestedVersion;
    }
    return h;
  }

  private post(body: unknown): Promise<HttpAnswer> {
    return request(
      this.fetchFn,
      this.url,
      { method: 'POST', headers: this.headers(), body: JSON.stringify(body) },
      this.timeoutMs,
      this.limits,
    );
  }

  /** `initialize` then `notifications/initialized`; throws when the server does not answer. */
  async initialize(): Promise<void> {
    const send = () =>
      this.post({
        jsonrpc: '2.0',
        id: this.nextRpcId(),
        method: 'initialize',
        params: {
          protocolVersion: this.requestedVersion,
          capabilities: {},
          clientInfo: { name: 'mcp-resumption-conformance', version: '0.1.0' },
        },
      });
    // A connection the harness itself just cut (`dropConnections`) may still sit in the pool:
    // the request then fails before it reaches the server. One retry, as for a resume; a second
    // session, should the first request have arrived after all, costs the server nothing.
    let answer = await send();
    if (answer.kind === 'error' && answer.redirect === undefined) answer = await send();
    try {
      await this.readInitialize(answer);
    } catch (e) {
      if (e instanceof HarnessError && (await this.speaksOnly2026())) {
        throw new Era2026Error(`initialize failed and server/discover offers only 2026-07-28`);
      }
      throw e;
    }
  }

  /**
   * Whether the server speaks only 2026-07-28 (no sessions, no `initialize`): asked once, with
   * `server/discover`, after `initialize` failed. Any answer that names 2026-07-28 and none of
   * the versions the harness speaks counts.
   */
  private async speaksOnly2026(): Promise<boolean> {
    const answer = await this.post({
      jsonrpc: '2.0',
      id: this.nextRpcId(),
      method: 'server/discover',
    });
    let text = '';
    if (answer.kind === 'json') text = JSON.stringify(answer.body ?? '');
    else if (answer.kind === 'sse') {
      const r = await answer.stream.next(this.timeoutMs);
      if (r.kind === 'event') text = r.data;
      answer.stream.abort();
    }
    return (
      text.includes('2026-07-28') &&
      !/"result"\s*:\s*null/.test(text) &&
      !(PROTOCOL_VERSIONS as readonly string[]).some((v) => text.includes(v))
    );
  }

  /** Reads the answer to `initialize`: the session id and the negotiated version. */
  private async readInitialize(answer: HttpAnswer): Promise<void> {
    // What the answer was, for the error that names it: status, content type, body excerpt.
    let seen: { status: number; type: string; body: string } | undefined;
    if (answer.kind === 'sse') {
      const type = answer.stream.headers.get('content-type') ?? '(none)';
      if (answer.stream.status !== 200) {
        answer.stream.abort();
        throw new HarnessError(
          `initialize answered ${answer.stream.status} (content-type ${type})`,
          answer.stream.status,
        );
      }
      this.sessionId = answer.stream.headers.get('mcp-session-id') ?? undefined;
      seen = { status: 200, type, body: '(no event with a result)' };
      // Read to the response (priming first), bounded.
      for (;;) {
        const r = await answer.stream.next(this.timeoutMs);
        if (r.kind === 'event') seen.body = bodyExcerpt(r.data);
        if (r.kind === 'event' && r.data.includes('"result"')) {
          try {
            this.negotiatedVersion = negotiatedVersion(JSON.parse(r.data));
          } catch {
            // not JSON: no version, reported below
          }
          break;
        }
        if (r.kind === 'end' || r.kind === 'timeout' || r.kind === 'error') break;
      }
      answer.stream.abort();
    } else if (answer.kind === 'json') {
      this.sessionId = answer.headers.get('mcp-session-id') ?? undefined;
      const type = answer.headers.get('content-type') ?? '(none)';
      if (answer.status !== 200) {
        throw new HarnessError(
          `initialize answered ${answer.status} (content-type ${type})`,
          answer.status,
          bodyExcerpt(answer.body),
        );
      }
      seen = { status: answer.status, type, body: bodyExcerpt(answer.body) };
      this.negotiatedVersion = negotiatedVersion(answer.body);
    } else if (answer.kind === 'timeout') {
      throw new NoAnswerError(`initialize: timeout, no answer in ${this.timeoutMs} ms`);
    } else {
      throw new HarnessError(`initialize failed (${answer.message})`);
    }
    if (this.negotiatedVersion === undefined) {
      // For example an SSE body served as application/json: the excerpt shows `event:` lines.
      throw new HarnessError(
        `initialize answered ${seen?.status ?? '?'} (content-type ${seen?.type ?? '?'}) ` +
          'without a result.protocolVersion',
        seen?.status ?? null,
        seen?.body,
      );
    }
    if (this.negotiatedVersion === '2026-07-28') {
      throw new Era2026Error('initialize negotiated 2026-07-28');
    }
    if (!(PROTOCOL_VERSIONS as readonly string[]).includes(this.negotiatedVersion)) {
      throw new HarnessError(
        `initialize negotiated protocol version ${this.negotiatedVersion}, which the harness ` +
          `does not speak (it speaks ${PROTOCOL_VERSIONS.join(', ')})`,
      );
    }
    // No Mcp-Session-Id: a sessionless (stateless) server, which the spec allows. Its calls run;
    // a resume has no session to name, and the scenarios say so.
    const note = await this.post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    if (note.kind === 'sse') note.stream.abort();
  }

  /** Calls the test tool; the answer is normally an SSE stream. */
  call(args: CountArgs): Promise<HttpAnswer> {
    const id = this.nextRpcId();
    return this.post({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: TOOL_NAME, arguments: args, _meta: { progressToken: `${args.tag}-${id}` } },
    });
  }

  /**
   * Calls tool `name` and resolves to the text of its result's first content item (the remote
   * tool control uses it: `count_release`, `count_status`). Any other answer is a
   * {@link HarnessError}; no answer in time is a {@link NoAnswerError}.
   */
  async callToolText(name: string, args: Record<string, unknown>): Promise<string> {
    const id = this.nextRpcId();
    const answer = await this.post({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name, arguments: args },
    });
    const textOf = (msg: unknown): string => {
      const m = msg as {
        result?: { content?: { text?: unknown }[]; isError?: unknown };
        error?: { message?: unknown };
      } | null;
      const text = m?.result?.content?.[0]?.text;
      if (typeof text === 'string' && m?.result?.isError !== true) return text;
      throw new HarnessError(`tools/call ${name} failed`, 200, bodyExcerpt(msg));
    };
    if (answer.kind === 'timeout') {
      throw new NoAnswerError(`tools/call ${name}: no answer in ${this.timeoutMs} ms`);
    }
    if (answer.kind === 'error') throw new HarnessError(`tools/call ${name}: ${answer.message}`);
    if (answer.kind === 'json') {
      if (answer.status !== 200) {
        throw new HarnessError(
          `tools/call ${name} answered ${answer.status}`,
          answer.status,
          bodyExcerpt(answer.body),
        );
      }
      // The answer must be this request's: a server that routes answers by id across sessions
      // may hand the control session another request's.
      const got = (answer.body as { id?: unknown } | null)?.id;
      if (got !== id) {
        throw new HarnessError(
          `tools/call ${name} was answered with id ${JSON.stringify(got)}, not ${JSON.stringify(id)}`,
          answer.status,
          bodyExcerpt(answer.body),
        );
      }
      return textOf(answer.body);
    }
    try {
      for (;;) {
        const r = await answer.stream.next(this.timeoutMs);
        if (r.kind === 'timeout') {
          throw new NoAnswerError(`tools/call ${name}: no result in ${this.timeoutMs} ms`);
        }
        if (r.kind === 'end' || r.kind === 'error') {
          throw new HarnessError(`tools/call ${name}: the stream ended before the result`);
        }
        if (r.kind !== 'event') continue;
        let msg: unknown;
        try {
          msg = JSON.parse(r.data);
        } catch {
          continue;
        }
        if ((msg as { id?: unknown } | null)?.id === id) return textOf(msg);
      }
    } finally {
      answer.stream.abort();
    }
  }

  /** A `ping` on the client's session: what the server answers it (a probe, not a step). */
  ping(): Promise<HttpAnswer> {
    return this.post({ jsonrpc: '2.0', id: this.nextRpcId(), method: 'ping' });
  }

  /** The resumption GET, with `Last-Event-ID` when `cursor` is not `null`. */
  get(cursor: string | null, sessionId = this.sessionId): Promise<HttpAnswer> {
    const h: Record<string, string> = { accept: 'text/event-stream' };
    if (sessionId) {
      h['mcp-session-id'] = sessionId;
      h['mcp-protocol-version'] = this.negotiatedVersion ?? this.requestedVersion;
    }
    if (cursor !== null) h['last-event-id'] = cursor;
    const send = () =>
      request(this.fetchFn, this.url, { method: 'GET', headers: h }, this.timeoutMs, this.limits);
    // A connection the server just cut may still sit in the pool: one retry, as clients do (a
    // redirect is an answer, not a broken connection).
    return send().then((a) => (a.kind === 'error' && a.redirect === undefined ? send() : a));
  }

  /** Ends the session (DELETE), best effort. */
  async close(): Promise<void> {
    if (!this.sessionId) return;
    const answer = await request(
      this.fetchFn,
      this.url,
      { method: 'DELETE', headers: this.headers() },
      this.timeoutMs,
    );
    if (answer.kind === 'sse') answer.stream.abort();
  }
}
