/**
 * One `Client.callTool` through the real SDK clients (1.x `@modelcontextprotocol/sdk`, 2.x
 * `@modelcontextprotocol/client`), with a given `fetch`: what the call settled with and when.
 * This is what an application calls; the transport-level runs (./sdk-clients.ts) miss how the
 * SDK's request layer waits for a response that never comes.
 */
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { SdkKind } from './sdk-clients.js';

/** How one call settled. */
export interface Settled {
  /** `Date.now()` when the call settled. */
  at: number;
  result?: unknown;
  error?: unknown;
  /** Notifications the application received before it settled. */
  notes: unknown[];
}

/** A connected SDK client (one session). */
export interface Connected {
  /** Calls the tool `count` (with `args`); the call's own timeout is `timeoutMs`. */
  call(timeoutMs?: number, args?: Record<string, unknown>): Promise<Settled>;
  /** Every `notifications/message` datum the application received, in order. */
  notes: unknown[];
  close(): Promise<void>;
}

/** Connects a `Client` of SDK `kind` to `url` through `fetchFn` (one session). */
export async function connectClient(
  kind: SdkKind,
  url: string,
  fetchFn: typeof fetch,
  version?: '2026-07-28',
): Promise<Connected> {
  const notes: unknown[] = [];
  const reconnectionOptions = {
    initialReconnectionDelay: 50,
    maxReconnectionDelay: 200,
    reconnectionDelayGrowFactor: 1.5,
    maxRetries: 2,
  };
  const opts = { fetch: fetchFn, reconnectionOptions };
  const settle = async (run: () => Promise<unknown>): Promise<Settled> => {
    try {
      const result = await run();
      return { at: Date.now(), result, notes: [...notes] };
    } catch (error) {
      return { at: Date.now(), error, notes: [...notes] };
    }
  };
  if (kind === 'v1') {
    const client = new ClientV1({ name: 'probe', version: '1.0.0' });
    client.setNotificationHandler(
      (await import('@modelcontextprotocol/sdk/types.js')).LoggingMessageNotificationSchema,
      (n) => void notes.push(n.params.data),
    );
    await client.connect(new TransportV1(new URL(url), opts));
    return {
      call: (timeoutMs = 60_000, args = {}) =>
        settle(() =>
          client.callTool({ name: 'count', arguments: args }, undefined, { timeout: timeoutMs }),
        ),
      notes,
      close: () => client.close().catch(() => {}),
    };
  }
  const client = new ClientV2(
    { name: 'probe', version: '1.0.0' },
    version ? { versionNegotiation: { mode: { pin: version } } } : {},
  );
  client.setNotificationHandler('notifications/message', (n) => void notes.push(n.params.data));
  await client.connect(new TransportV2(new URL(url), opts));
  return {
    call: (timeoutMs = 60_000, args = {}) =>
      settle(() => client.callTool({ name: 'count', arguments: args }, { timeout: timeoutMs })),
    notes,
    close: () => client.close().catch(() => {}),
  };
}

/** Connects, calls the tool `count` once and closes; the call's own timeout is `timeoutMs`. */
export async function callTool(
  kind: SdkKind,
  url: string,
  fetchFn: typeof fetch,
  { timeoutMs = 60_000, version }: { timeoutMs?: number; version?: '2026-07-28' } = {},
): Promise<Settled> {
  const client = await connectClient(kind, url, fetchFn, version);
  try {
    return await client.call(timeoutMs);
  } finally {
    await client.close();
  }
}
