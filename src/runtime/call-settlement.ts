/**
 * How a failed resumption reaches the application's call: the guard answers the SDK with a
 * JSON-RPC error response for the pending request's id, so `Client.callTool` rejects at once
 * (the founding rule: do not wait) instead of when its own request timeout runs out. This file
 * holds the wire form of that answer and its reading back on the application's side.
 */
import { StreamResumptionError, type FailedCall } from '../reference.js';
import type { Outcome, ReasonCode } from '../../model/outcomes.js';

/**
 * The JSON-RPC error code of a call ended by the guard because its stream's resumption failed
 * or its session was lost. It lies in JSON-RPC's implementation-defined server-error range
 * (-32000 to -32099), apart from the codes the MCP SDKs and this project use elsewhere
 * (-32000, -32001, -32010, -32042).
 */
export const RESUMPTION_ERROR_CODE = -32030;

/** The `data` of the guard's JSON-RPC error: the outcome, the rule and where the stream stood. */
export interface ResumptionErrorData {
  /** What the application must do: re-issue (`resumption-failed`) or re-initialize first (`session-lost`). */
  outcome: Extract<Outcome, 'resumption-failed' | 'session-lost'>;
  /** The reason code (the model's: `skip`, `no-response`, `bad-status`, `session-gone`, …). */
  code: ReasonCode;
  /** The reason in words (the error's `message` without the outcome in front). */
  reason: string;
  stream: string | null;
  /** The `Last-Event-ID` of the failing reconnect (`null`: it carried none). */
  cursor: string | null;
  /** The last event id handed to the application (`null`: none). */
  lastDelivered: string | null;
  /** The request's id and method, as sent. */
  requestId: string | number | null;
  method: string | null;
}

/** The JSON-RPC error response that ends the call `error` names. */
export function settlementOf(error: StreamResumptionError): Record<string, unknown> {
  const call = error.call;
  const data: ResumptionErrorData = {
    outcome: error.outcome,
    code: error.code,
    reason: error.message,
    stream: call?.stream ?? null,
    cursor: call?.cursor ?? null,
    lastDelivered: call?.lastDelivered ?? null,
    requestId: call?.requestId ?? null,
    method: call?.method ?? null,
  };
  return {
    jsonrpc: '2.0',
    id: call?.requestId ?? null,
    error: { code: RESUMPTION_ERROR_CODE, message: `${error.outcome}: ${error.message}`, data },
  };
}

/**
 * The prefix of the id the guard gives the event that ends a call. SDK 1.x reconnects after a
 * stream whose last message was an error response (it stops only after a result), with the
 * stream's last id as `Last-Event-ID`: this id makes that reconnect the guard's own, answered
 * 405 without a request, instead of a cursor-less GET that could be taken for another stream
 * dropping its cursor.
 */
export const SETTLED_ID_PREFIX = 'mcpr-call-ended-';

/** `true` for a `Last-Event-ID` that names an event the guard sent to end a call. */
export function isSettledId(id: string): boolean {
  return id.startsWith(SETTLED_ID_PREFIX);
}

/** The SSE text of the event carrying the call's error response; `n` makes its id unique. */
export function settlementEvent(error: StreamResumptionError, n: number): string {
  return `id: ${SETTLED_ID_PREFIX}${n}\ndata: ${JSON.stringify(settlementOf(error))}\n\n`;
}

/**
 * A stream that carries only the call's error response, then ends: the answer the guard hands
 * the SDK for a refusal that had no body of its own (a 405, a 404, a redirect, a reconnect the
 * guard refused before sending it).
 */
export function settlementResponse(error: StreamResumptionError, n: number): Response {
  return new Response(settlementEvent(error, n), {
    status: 200,
    headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-store' },
  });
}

/** One stream carrying the error responses of several calls (`[error, n]` each), then its end. */
export function settlementsResponse(endings: [StreamResumptionError, number][]): Response {
  return new Response(endings.map(([e, n]) => settlementEvent(e, n)).join(''), {
    status: 200,
    headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-store' },
  });
}

/**
 * The answer to a reconnect for a call the guard has already ended: a 405, which both SDK
 * clients take as "no stream here" and stop reconnecting on. No request is sent.
 */
export function settledResponse(): Response {
  return new Response(null, { status: 405, statusText: 'call already ended by continuityGuard' });
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null;
}

const OUTCOMES = new Set(['resumption-failed', 'session-lost']);

/**
 * The guard's failure behind an error a call rejected with (the SDK's `McpError` in 1.x,
 * `ProtocolError` in 2.x, both with `code` and `data`), or a {@link StreamResumptionError}
 * itself; `null` for any other error. Use it to tell "the stream's resumption failed" from a
 * tool's own error or a timeout.
 *
 * @category Runtime
 */
export function resumptionFailureOf(error: unknown): StreamResumptionError | null {
  if (error instanceof StreamResumptionError) return error;
  if (!isRecord(error) || error.code !== RESUMPTION_ERROR_CODE || !isRecord(error.data)) {
    return null;
  }
  const d = error.data;
  if (typeof d.outcome !== 'string' || !OUTCOMES.has(d.outcome)) return null;
  const text = (v: unknown) => (typeof v === 'string' ? v : null);
  const id = d.requestId;
  const call: FailedCall = {
    requestId: typeof id === 'string' || typeof id === 'number' ? id : null,
    method: text(d.method),
    request: null,
    stream: text(d.stream),
    cursor: text(d.cursor),
    lastDelivered: text(d.lastDelivered),
  };
  const message =
    typeof d.reason === 'string'
      ? d.reason
      : typeof error.message === 'string'
        ? error.message
        : 'resumption failed';
  return new StreamResumptionError(
    message,
    (typeof d.code === 'string' ? d.code : 'unproven') as ReasonCode,
    d.outcome as 'resumption-failed' | 'session-lost',
    call,
  );
}
