/**
 * One call of the false-alarm bench, as an application makes it: an SDK `Client` (1.x or 2.x)
 * over `StreamableHTTPClientTransport`, whose `fetch` is `continuityGuard` with the README's
 * settings (or bare `fetch`, for reference), calling the `work` tool with a progress callback.
 */
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { continuityGuard } from '../../src/runtime/index.js';
import type { WorkArgs } from './server.js';

/** Which SDK client. */
export type Sdk = 'v1' | 'v2';

/**
 * The time scale: every duration of the README's recipe and of the guard's and the SDK's
 * defaults is divided by this, so that a proof budget P of 10 s becomes 1 s and a run takes
 * minutes, not hours.
 */
export const SCALE = 10;

/** The proof budget P (ms) at this scale. */
export const P = 10_000 / SCALE;

/**
 * The README's guard settings (`idleTimeoutMs: 60_000`, an `onFailure`) with the guard's own
 * defaults for the rest, every time scaled.
 */
export function readmeGuard(onFailure: (e: Error) => void): typeof fetch {
  return continuityGuard(fetch, {
    idleTimeoutMs: 60_000 / SCALE,
    proofTimeoutMs: 10_000 / SCALE,
    firstHeadersTimeoutMs: 60_000 / SCALE,
    onFailure,
  });
}

/** The SDK transports' reconnection defaults (1 s, 30 s, 1.5, 2 retries), times scaled. */
const RECONNECTION = {
  initialReconnectionDelay: 1_000 / SCALE,
  maxReconnectionDelay: 30_000 / SCALE,
  reconnectionDelayGrowFactor: 1.5,
  maxRetries: 2,
};

/**
 * The application's own request timeout: twice the longest silence (10 × P), as an application
 * that runs tools quiet for that long sets it (the SDK's 60 s default, scaled, would end the
 * quietest calls itself).
 */
export const CALL_TIMEOUT_MS = 20 * P;

/** How one call went. */
export interface CallRecord {
  /** The call resolved with its own result. */
  resolved: boolean;
  /** The result's text, or the error's message. */
  text: string;
  /** The error's JSON-RPC code, when it has one. */
  code?: number;
  /** Progress numbers as the application received them. */
  progress: number[];
  /** `onFailure` escalations of the guard. */
  failures: number;
  /** `performance.now()` when the call settled. */
  settledAt: number;
  /** The session, once connected. */
  session?: string;
}

/**
 * Connects, calls `work` with `args` once and closes. `onSession` is told the session before
 * the call goes out; `onFirstProgress` when the first notification reaches the application,
 * `onProgress` when any does.
 */
export async function callWork(
  sdk: Sdk,
  url: string,
  guarded: boolean,
  args: WorkArgs,
  clientName: string,
  hooks: {
    onSession?: (s: string) => void;
    onFirstProgress?: () => void;
    onProgress?: () => void;
    /** The SDK's first reconnection delay, instead of its default scaled. */
    reconnectDelayMs?: number;
  } = {},
): Promise<CallRecord> {
  const progress: number[] = [];
  let failures = 0;
  const fetchFn = guarded ? readmeGuard(() => failures++) : fetch;
  const reconnectionOptions = hooks.reconnectDelayMs
    ? { ...RECONNECTION, initialReconnectionDelay: hooks.reconnectDelayMs }
    : RECONNECTION;
  const opts = { fetch: fetchFn, reconnectionOptions };
  const onprogress = (p: { progress: number }) => {
    if (progress.length === 0) hooks.onFirstProgress?.();
    progress.push(p.progress);
    hooks.onProgress?.();
  };
  const request = { name: 'work', arguments: { ...args } };
  const info = { name: clientName, version: '1.0.0' };
  let session: string | undefined;
  let close: () => Promise<void> = async () => {};
  const settle = (resolved: boolean, text: string, code?: number): CallRecord => ({
    resolved,
    text,
    ...(code === undefined ? {} : { code }),
    progress,
    failures,
    settledAt: performance.now(),
    ...(session === undefined ? {} : { session }),
  });
  try {
    let call: Promise<unknown>;
    if (sdk === 'v1') {
      const client = new ClientV1(info);
      const transport = new TransportV1(new URL(url), opts);
      await client.connect(transport);
      close = () => client.close();
      session = transport.sessionId;
      hooks.onSession?.(session!);
      call = client.callTool(request, undefined, { onprogress, timeout: CALL_TIMEOUT_MS });
    } else {
      const client = new ClientV2(info);
      const transport = new TransportV2(new URL(url), opts);
      await client.connect(transport);
      close = () => client.close();
      session = transport.sessionId;
      hooks.onSession?.(session!);
      call = client.callTool(request, { onprogress, timeout: CALL_TIMEOUT_MS });
    }
    const result = await call;
    const content = (result as { content?: { type: string; text?: string }[] }).content;
    return settle(true, content?.[0]?.text ?? '');
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    return settle(
      false,
      e instanceof Error ? e.message : String(e),
      typeof code === 'number' ? code : undefined,
    );
  } finally {
    await close().catch(() => {});
  }
}
