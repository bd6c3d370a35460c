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

/** Connects, calls the tool `count` once and closes; the call's own timeout is `timeoutMs`. */
export async function callTool(
  kind: SdkKind,
  url: string,
  fetchFn: typeof fetch,
  { timeoutMs = 60_000, version }: { timeoutMs?: number; version?: '2026-07-28' } = {},
): Promise<Settled> {
  const notes: unknown[] = [];
  const reconnectionOptions = {
    initialReconnectionDelay: 50,
    maxReconnectionDelay: 200,
    reconnectionDelayGrowFactor: 1.5,
    maxRetries: 2,
  };
  const opts = { fetch: fetchFn, reconnectionOptions };
  const params = { name: 'count', arguments: {} };
  if (kind === 'v1') {
    const client = new ClientV1({ name: 'probe', version: '1.0.0' });
    client.setNotificationHandler(
      (await import('@modelcontextprotocol/sdk/types.js')).LoggingMessageNotificationSchema,
      (n) => void notes.push(n.params.data),
    );
    await client.connect(new TransportV1(new URL(url), opts));
    try {
      const result = await client.callTool(params, undefined, { timeout: timeoutMs });
      return { at: Date.now(), result, notes };
    } catch (error) {
      return { at: Date.now(), error, notes };
    } finally {
      await client.close().catch(() => {});
    }
  }
  const client = new ClientV2(
    { name: 'probe', version: '1.0.0' },
    version ? { versionNegotiation: { mode: { pin: version } } } : {},
  );
  client.setNotificationHandler('notifications/message', (n) => void notes.push(n.params.data));
  await client.connect(new TransportV2(new URL(url), opts));
  try {
    const result = await client.callTool(params, { timeout: timeoutMs });
    return { at: Date.now(), result, notes };
  } catch (error) {
    return { at: Date.now(), error, notes };
  } finally {
    await client.close().catch(() => {});
  }
}
