/**
 * How a failed resumption reaches the application's call: the guard answers the SDK with a
 * JSON-RPC error response for the pending request's id, so `Client.callTool` rejects at once
 * (the founding rule: do not wait) instead of when its own request timeout runs out. This file
 * holds the wire form of that answer and its reading back on the application's side.
 */
import { createHmac, randomBytes } from 'node:crypto';
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
  /**
   * What was lost: the stream's messages (`resumption-failed`) or the session (`session-lost`).
   * Re-issue only a call that can run twice (docs/spec.md, "Who re-issues a call"); else surface
   * a partial result.
   */
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
  /**
   * The guard's seal over the fields above: a MAC under a key drawn at random when this module
   * loads, which never leaves the process (the settlement is a `Response` the guard makes for
   * the SDK, never sent on the network). {@link resumptionFailureOf} takes an error for the
   * guard's own only with a seal it can check, so a server that answers a call with a -32030
   * of its own cannot make the application re-issue the call or open a new session.
   */
  seal: string;
}

/** The key of the seals, drawn once per process: it is never written anywhere. */
const SEAL_KEY = randomBytes(32);

/** The seal of the fields of `d` (any shape: a forged one gets a seal that does not match). */
function sealOf(d: Record<string, unknown>): string {
  const fields = [
    d.outcome,
    d.code,
    d.reason,
    d.stream,
    d.cursor,
    d.lastDelivered,
    d.requestId,
    d.method,
  ];
  return createHmac('sha256', SEAL_KEY).update(JSON.stringify(fields)).digest('base64url');
}

/** The JSON-RPC error response that ends the call `error` names. */
export function settlementOf(error: StreamResumptionError): Record<string, unknown> {
  const call = error.call;
  const fields = {
    outcome: error.outcome,
    code: error.code,
    reason: error.message,
    stream: call?.stream ?? null,
    cursor: call?.cursor ?? null,
    lastDelivered: call?.lastDelivered ?? null,
    requestId: call?.requestId ?? null,
    method: call?.method ?? null,
  };
  const data: ResumptionErrorData = { ...fields, seal: sealOf(fields) };
  return {
    jsonrpc: '2.0',
    id: call?.requestId ?? null,
    error: { code: RESUMPTION_ERROR_CODE, message: `${error.outcome}: ${error.message}`, data },
  };
}

/**
 * The prefix of the ids the guard gives the events it writes itself: the event that ends a call,
 * and the marker after a call's error response. SDK 1.x reconnects after a stream whose last
 * message was an error response (it stops only after a result), with the stream's last id as
 * `Last-Event-ID`: such an id makes that reconnect the guard's own, answered 405 without a
 * request, instead of a resume of a call that has its answer. Each guard adds a random token of
 * its own ({@link settledIdPrefix}): a server that writes ids with this prefix cannot make the
 * guard take its events for the guard's.
 */
export const SETTLED_ID_PREFIX = 'mcpr-call-ended-';

/** The prefix of one guard's own event ids: {@link SETTLED_ID_PREFIX}, a random token, `-`. */
export function settledIdPrefix(): string {
  return `${SETTLED_ID_PREFIX}${randomBytes(9).toString('base64url')}-`;
}

/** The SSE text of the event carrying the call's error response, with the guard's id `id`. */
export function settlementEvent(error: StreamResumptionError, id: string): string {
  return `id: ${id}\ndata: ${JSON.stringify(settlementOf(error))}\n\n`;
}

/**
 * A stream that carries only the call's error response, then ends: the answer the guard hands
 * the SDK for a refusal that had no body of its own (a 405, a 404, a redirect, a reconnect the
 * guard refused before sending it).
 */
export function settlementResponse(error: StreamResumptionError, id: string): Response {
  return new Response(settlementEvent(error, id), {
    status: 200,
    headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-store' },
  });
}

/** One stream carrying the error responses of several calls (`[error, id]` each), then its end. */
export function settlementsResponse(endings: [StreamResumptionError, string][]): Response {
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
 * Only the guard's own settlement is read back: its `data` carries a seal made with a key that
 * never leaves this process. A -32030 error written by a server (whatever its `data` says) is
 * `null` here, as any other error of the tool: a server cannot make `reissueOnce` re-run a call
 * or open a new session.
 *
 * @category Runtime
 */
export function resumptionFailureOf(error: unknown): StreamResumptionError | null {
  if (error instanceof StreamResumptionError) return error;
  if (!isRecord(error) || error.code !== RESUMPTION_ERROR_CODE || !isRecord(error.data)) {
    return null;
  }
  const d = error.data;
  if (typeof d.seal !== 'string' || d.seal !== sealOf(d)) return null;
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
  return new StreamResumptionError(
    typeof d.reason === 'string' ? d.reason : 'resumption failed',
    (typeof d.code === 'string' ? d.code : 'unproven') as ReasonCode,
    d.outcome as 'resumption-failed' | 'session-lost',
    call,
  );
}
