/**
 * The real SDK client transports (1.x `@modelcontextprotocol/sdk`, 2.x
 * `@modelcontextprotocol/client`) driven through one tool call, with a given `fetch`: what the
 * application received (messages, errors) and when the transport was done.
 */
import { StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** Which SDK client. */
export type SdkKind = 'v1' | 'v2';

/** Both SDK major versions. */
export const SDK_KINDS: readonly SdkKind[] = ['v1', 'v2'];

/** What the application received. */
export interface Received {
  messages: Record<string, unknown>[];
  errors: unknown[];
}

/** Short reconnection delays (the guard clamps a server's `retry:` on top of these). */
const RECONNECTION = {
  initialReconnectionDelay: 10,
  maxReconnectionDelay: 40,
  reconnectionDelayGrowFactor: 1.5,
  maxRetries: 2,
};

/**
 * Sends one request (id 1) through the SDK transport and collects what reaches the
 * application until the result arrives, the transport gives up reconnecting, or nothing has
 * happened for `quietMs` (every wait bounded by `maxMs`). The calls end on their result or the
 * transport's giving up; `quietMs` only ends a call that neither reaches, and its 2 s default
 * (400 ms before) is a pause no step of a loaded 2-core machine (load 20) should reach between
 * a stream's end and the transport's reconnect 10 ms later.
 */
export async function callThrough(
  kind: SdkKind,
  url: string,
  fetchFn: typeof fetch,
  { quietMs = 2_000, maxMs = 8_000 }: { quietMs?: number; maxMs?: number } = {},
): Promise<Received> {
  const got: Received = { messages: [], errors: [] };
  let last = Date.now();
  let done = false;
  const watched: typeof fetch = async (input, init) => {
    last = Date.now();
    try {
      return await fetchFn(input, init);
    } finally {
      last = Date.now();
    }
  };
  const opts = { fetch: watched, reconnectionOptions: RECONNECTION };
  const transport =
    kind === 'v1'
      ? new StreamableHTTPClientTransport(new URL(url), opts)
      : new TransportV2(new URL(url), opts);
  transport.onmessage = (m: unknown) => {
    last = Date.now();
    const msg = m as Record<string, unknown>;
    got.messages.push(msg);
    if ('result' in msg || 'error' in msg) done = true;
  };
  transport.onerror = (e: unknown) => {
    last = Date.now();
    got.errors.push(e);
    if (e instanceof Error && /Maximum reconnection attempts/.test(e.message)) done = true;
  };
  await transport.start();
  const started = Date.now();
  await transport
    .send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'count' } })
    .catch((e: unknown) => got.errors.push(e));
  while (!done && Date.now() - last < quietMs && Date.now() - started < maxMs) {
    await new Promise((r) => setTimeout(r, 20));
  }
  await transport.close().catch(() => {});
  return got;
}

/** The owed notifications' numbers in the order the application received them. */
export function notesOf(r: Received): number[] {
  return r.messages
    .filter((m) => m.method === 'notifications/message')
    .map((m) => (m.params as { data: number }).data);
}

/** `true` when the application received the call's result. */
export function hasResult(r: Received): boolean {
  return r.messages.some((m) => m.id === 1 && 'result' in m);
}
