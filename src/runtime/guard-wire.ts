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

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export function isResponseMessage(data: string): boolean {
  if (!data.includes('"id"')) return false;
  const m = parseJson(data) as Record<string, unknown> | undefined;
  return (
    typeof m === 'object' &&
    m !== null &&
    'id' in m &&
    ('result' in m || 'error' in m) &&
    !('method' in m)
  );
}

/** The replay floor an acknowledgment states (`undefined`: not an acknowledgment). */
export function ackFloor(ev: EventSourceMessage): number | undefined {
  if (ev.id) return undefined;
  const msg = parseJson(ev.data);
  const f = isReplayAck(msg) ? (msg.params as { floor?: unknown }).floor : undefined;
  return typeof f === 'number' && Number.isSafeInteger(f) ? f : undefined;
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
