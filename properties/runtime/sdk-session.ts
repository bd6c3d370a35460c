/**
 * One connected SDK `Client` (1.x `@modelcontextprotocol/sdk` or 2.x
 * `@modelcontextprotocol/client`) over a given `fetch`, kept open for several calls: what an
 * application holds. It counts the resumes (GETs with `Last-Event-ID`) its transport made and
 * that were answered, so that a test can wait for an SDK's reconnect as an event, not a time.
 */
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { SdkKind } from './sdk-clients.js';

/** A connected client. */
export interface SdkSession {
  /** `Client.callTool` of the tool `name` (no arguments), with a 30 s request timeout. */
  call(name: string): Promise<unknown>;
  /** `Client.listTools` as the SDK returns it. */
  listTools(): Promise<{ tools: { name: string; annotations?: Record<string, unknown> }[] }>;
  /** Resumes (GETs with `Last-Event-ID`) made and answered so far. */
  resumesAnswered(): number;
  close(): Promise<void>;
}

const RECONNECTION = {
  initialReconnectionDelay: 10,
  maxReconnectionDelay: 40,
  reconnectionDelayGrowFactor: 1.5,
  maxRetries: 2,
};

/** Connects a client of `kind` to `url` through `fetchFn`. */
export async function connectSdk(
  kind: SdkKind,
  url: string,
  fetchFn: typeof fetch,
): Promise<SdkSession> {
  let answered = 0;
  const counted: typeof fetch = async (input, init) => {
    const resume =
      (init?.method ?? 'GET').toUpperCase() === 'GET' &&
      new Headers(init?.headers).has('last-event-id');
    try {
      return await fetchFn(input, init);
    } finally {
      if (resume) answered++;
    }
  };
  const opts = { fetch: counted, reconnectionOptions: RECONNECTION };
  if (kind === 'v1') {
    const client = new ClientV1({ name: 'probe', version: '1.0.0' });
    await client.connect(new TransportV1(new URL(url), opts));
    return {
      call: (name) => client.callTool({ name, arguments: {} }, undefined, { timeout: 30_000 }),
      listTools: () => client.listTools(),
      resumesAnswered: () => answered,
      close: () => client.close().catch(() => {}),
    };
  }
  const client = new ClientV2({ name: 'probe', version: '1.0.0' });
  await client.connect(new TransportV2(new URL(url), opts));
  return {
    call: (name) => client.callTool({ name, arguments: {} }, { timeout: 30_000 }),
    listTools: () => client.listTools(),
    resumesAnswered: () => answered,
    close: () => client.close().catch(() => {}),
  };
}

/** Waits until `done()` holds (checked every 10 ms), failing after 20 s: `what` names it. */
export async function until(done: () => boolean, what: string): Promise<void> {
  const start = Date.now();
  while (!done()) {
    if (Date.now() - start > 20_000) throw new Error(`waited 20 s for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
