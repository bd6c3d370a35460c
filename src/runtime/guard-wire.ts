/**
 * The guard's pure wire helpers: what a request is (method, headers, the call its body carries)
 * and what an answer or an SSE event is (a redirect, an SSE content type, a JSON-RPC response,
 * a replay acknowledgment), and an event written back as SSE text. No state: the guard's core
 * (guard-core.ts) decides, these only read.
 */
import type { EventSourceMessage } from 'eventsource-parser';
import { isReplayAck } from './continuity-store.js';

/** What `fetch` takes as its first argument. */
export type Input = Parameters<typeof fetch>[0];

/** The call a POST carries (see {@link callOf}). */
export type Call = { key: string; request: Record<string, unknown> } | null;

export function headersOf(input: Input, init?: RequestInit): Headers {
  if (init?.headers) return new Headers(init.headers);
  if (input instanceof Request) return input.headers;
  return new Headers();
}

/**
 * The session a request belongs to: its endpoint and its `Mcp-Session-Id` (empty before
 * `initialize` gave one, and for a server that gives none). MCP makes event ids unique within a
 * session only, so the guard looks a `Last-Event-ID` up among the streams of its own session:
 * one guard can serve any number of sessions and servers.
 */
export function scopeOf(input: Input, headers: Headers): string {
  const url = input instanceof Request ? input.url : String(input);
  return `${url}\n${headers.get('mcp-session-id') ?? ''}`;
}

export function methodOf(input: Input, init?: RequestInit): string {
  return (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
}

/** The trace line of an event whose id was read (built without a spread: one per event). */
export function eventLine(
  id: number,
  stream: string | undefined,
  response: boolean,
): { type: 'event'; id: number; stream?: string; response?: true } {
  const line: { type: 'event'; id: number; stream?: string; response?: true } = stream
    ? { type: 'event', id, stream }
    : { type: 'event', id };
  // `"response": true`: the event carries the call's JSON-RPC response, so that `check
  // --strict` can tell a finished call from a dropped one.
  if (response) line.response = true;
  return line;
}

export function serialize(e: EventSourceMessage): string {
  let out = '';
  if (e.event) out += `event: ${e.event}\n`;
  if (e.id !== undefined) out += `id: ${e.id}\n`;
  // (One line of data, the common case, needs no split.)
  if (!e.data.includes('\n')) return `${out}data: ${e.data}\n\n`;
  for (const line of e.data.split('\n')) out += `data: ${line}\n`;
  return out + '\n';
}

/**
 * `encoder.encode(parts.join(''))`, cheaper for ASCII text (what a guarded stream almost always
 * hands on) and without joining: each part is written into its own span of an array of one byte
 * per character, which holds the part only when every character of it is ASCII (any other takes
 * two bytes or more); else the joined text is encoded as usual. (The guard hands on the held
 * start of a block and the text after it as two parts: a join copies the whole read again.)
 */
export function utf8(
  encoder: InstanceType<typeof TextEncoder>,
  parts: readonly string[],
): Uint8Array {
  let length = 0;
  for (const part of parts) length += part.length;
  const bytes = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    const span = parts.length === 1 ? bytes : bytes.subarray(at, at + part.length);
    if (encoder.encodeInto(part, span).read !== part.length) return encoder.encode(parts.join(''));
    at += part.length;
  }
  return bytes;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Whether an event's data may hold the key `"id"`: it holds `"id"` as written, or a `\u006`,
 * the start of `\u0069` or `\u0064` (`"\u0069d"` is the key `id` to `JSON.parse`, and JSON
 * has no other way to write an `i` or a `d`). A cheap pre-check: it never misses such a key.
 */
export function mayHoldIdKey(data: string): boolean {
  return data.includes('"id"') || data.includes('\\u006');
}

/** What a message is to the SDK clients' reading of a response (see {@link responseIn}). */
export interface ResponseRead {
  kind: 'result' | 'error';
  /** Its `id` as written (`undefined`: an error response without one). */
  id: unknown;
}

function isRequestId(v: unknown): boolean {
  return typeof v === 'string' || Number.isInteger(v);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const ERROR_KEYS = new Set(['jsonrpc', 'id', 'error']);

/**
 * The JSON-RPC response an SSE event's data is, read as both SDK clients read it
 * (`JSONRPCMessageSchema`: `JSON.parse`, then a strict result response `{jsonrpc: "2.0", id,
 * result: {…}}` or an error response `{jsonrpc: "2.0", id?, error: {code: integer, message:
 * string}}`, whose `id` is a string or an integer); `null` for anything else (a request, a
 * notification, text the SDK drops). Which request it answers is {@link answers}.
 */
export function responseIn(data: string): ResponseRead | null {
  const m = parseJson(data);
  if (!isObject(m) || m.jsonrpc !== '2.0' || Object.hasOwn(m, 'method')) return null;
  if (Object.hasOwn(m, 'result')) {
    const keys = Object.keys(m);
    if (keys.length !== 3 || !Object.hasOwn(m, 'id') || !isRequestId(m.id)) return null;
    const result = m.result;
    if (!isObject(result) || (Object.hasOwn(result, '_meta') && !isObject(result._meta)))
      return null;
    return { kind: 'result', id: m.id };
  }
  if (!Object.hasOwn(m, 'error') || Object.keys(m).some((k) => !ERROR_KEYS.has(k))) return null;
  if (Object.hasOwn(m, 'id') && !isRequestId(m.id)) return null;
  const e = m.error;
  if (!isObject(e) || !Number.isInteger(e.code) || typeof e.message !== 'string') return null;
  return { kind: 'error', id: Object.hasOwn(m, 'id') ? m.id : undefined };
}

/**
 * Whether a response with id `id` answers the request with id `requestId`, as the SDK clients
 * match it: both look the handler up by `Number(response.id)` (so `"5"` answers request 5); an
 * id that is no number matches only itself. A response without an id answers nothing.
 */
export function answers(id: unknown, requestId: unknown): boolean {
  if (id === undefined) return false;
  if (id === requestId) return true;
  if (typeof requestId !== 'number' && typeof requestId !== 'string') return false;
  const n = Number(id);
  return !Number.isNaN(n) && n === Number(requestId);
}

/** `true` for an SSE event type the SDK clients read as a message (none, or `message`). */
export function isMessageEvent(type: string | undefined): boolean {
  return !type || type === 'message';
}

/** What a replay acknowledgment states: its floor, and its head when it states one. */
export interface AckStatement {
  floor: number;
  /** The highest id the server has written on the stream (docs/spec.md#caught-up). */
  head?: number;
}

/**
 * What an acknowledgment states (`undefined`: not an acknowledgment). A `head` that is not a
 * safe integer is not a statement: the answer is judged as if it had none.
 */
export function ackStatement(ev: EventSourceMessage): AckStatement | undefined {
  if (ev.id) return undefined;
  const msg = parseJson(ev.data);
  if (!isReplayAck(msg)) return undefined;
  const { floor, head } = msg.params as { floor?: unknown; head?: unknown };
  if (typeof floor !== 'number' || !Number.isSafeInteger(floor)) return undefined;
  return typeof head === 'number' && Number.isSafeInteger(head) ? { floor, head } : { floor };
}

/**
 * The call a POST body carries, as `method` and `params` without `_meta` (the SDK puts a fresh
 * progress token there on every call), so that a re-issue of the same call is recognized.
 * `initialize` is reported as such: a new session re-issues everything.
 */
export function callOf(body: unknown): Call {
  if (typeof body !== 'string') return null;
  const m = parseJson(body) as { method?: unknown; id?: unknown; params?: unknown } | undefined;
  if (typeof m !== 'object' || m === null || typeof m.method !== 'string' || m.id === undefined) {
    return null;
  }
  const { _meta, ...params } = (m.params ?? {}) as Record<string, unknown>;
  void _meta;
  return { key: `${m.method} ${JSON.stringify(params)}`, request: m as Record<string, unknown> };
}

/**
 * What a server said with a refusal (a non-200 answer to a resume): the `message` of a JSON-RPC
 * error body (what the SDK servers send: "Invalid event ID format", …), or the body's first
 * line, at most 200 characters with control characters dropped; `undefined` when it said
 * nothing readable within `ms` or 4 KiB. The body is consumed (or cancelled).
 */
export async function serverWords(response: Response, ms: number): Promise<string | undefined> {
  const reader = response.body?.getReader();
  if (!reader) return undefined;
  const decoder = new TextDecoder();
  let text = '';
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((r) => (timer = setTimeout(() => r('late'), ms)));
  try {
    while (text.length < 4096) {
      const read = await Promise.race([reader.read(), late]);
      if (read === 'late' || read.done) break;
      text += decoder.decode(read.value, { stream: true });
    }
  } catch {
    // a broken body says nothing more
  } finally {
    clearTimeout(timer);
    reader.cancel().catch(() => {});
  }
  const m = parseJson(text) as { error?: { message?: unknown } } | undefined;
  const said =
    typeof m?.error?.message === 'string' ? m.error.message : (text.split('\n')[0] ?? '');
  let clean = '';
  for (const ch of said) if (ch >= ' ' && ch !== '\u007f') clean += ch;
  clean = clean.trim().slice(0, 200);
  return clean === '' ? undefined : JSON.stringify(clean);
}

/** A 3xx status. */
export function isRedirectStatus(status: number): boolean {
  return status >= 300 && status < 400;
}

/** A redirect answer: the guard asks fetch not to follow them on a resume (rule 3). */
export function isRedirect(r: Response): boolean {
  return r.type === 'opaqueredirect' || r.redirected || isRedirectStatus(r.status);
}

/** A `content-type` that is `text/event-stream` (with or without parameters). */
export function isEventStreamType(type: string | null): boolean {
  return /^\s*text\/event-stream\s*(;|$)/i.test(type ?? '');
}

/** The same answer with another body (the guarded one). */
export function withBody(response: Response, body: ReadableStream<Uint8Array>): Response {
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}
