/**
 * Adapters for the official TypeScript SDK servers: `@modelcontextprotocol/sdk` 1.x (the Node
 * `StreamableHTTPServerTransport`) and `@modelcontextprotocol/server` 2.x (the
 * `WebStandardStreamableHTTPServerTransport`, bridged to Node `http` here since 2.x ships no
 * Node wrapper in that package), each with a choice of event store.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport as NodeTransportV1 } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { InMemoryEventStore as SdkExampleStore } from '@modelcontextprotocol/sdk/examples/shared/inMemoryEventStore.js';
import { WebStandardStreamableHTTPServerTransport as WebTransportV2 } from '@modelcontextprotocol/server';
import { ContinuityEventStore, CONTINUITY_ID_PATTERN } from '../../runtime/continuity-store.js';
import { ReplayFence } from '../../runtime/replay-fence.js';
import { DelayedEventStore, RingBufferEventStore, type EventStoreLike } from '../stores.js';
import {
  OPAQUE_IDS,
  patternCodec,
  type AdapterCapabilities,
  type IdCodec,
  type StartOptions,
} from '../types.js';
import { packageVersion } from '../versions.js';
import { SessionHost, type HostedSession, type ProcessState } from './host.js';
import { v1ToolServer, v2ToolServer } from './tool-servers.js';

/** Which event store an SDK adapter runs with. */
export type StoreKind = 'example' | 'ring' | 'continuity' | 'continuity-nofence';

/** Ids of the ring store: `<stream>_<global seq>`. */
export const RING_ID_PATTERN = /^(?<stream>.+)_(?<seq>\d+)$/;

/** How an SDK adapter gets its event store. */
export interface StoreSpec {
  label: string;
  codec: IdCodec;
  evict: boolean;
  /**
   * `make` honours {@link StartOptions.storeDelayMs} (wraps the store in a
   * {@link DelayedEventStore}). Default `false`.
   */
  storeDelay?: boolean;
  /** Store instance for a session: shared per process, or per session. */
  make(options: StartOptions, state: ProcessState): EventStoreLike;
  scope: string;
}

function shared(state: ProcessState, make: () => EventStoreLike): EventStoreLike {
  let store = state.get('store') as EventStoreLike | undefined;
  if (!store) {
    store = make();
    state.set('store', store);
  }
  return store;
}

/** `store` behind the delay `options.storeDelayMs` asks for (unchanged when there is none). */
function delayed(store: EventStoreLike, options: StartOptions): EventStoreLike {
  const ms = options.storeDelayMs ?? 0;
  return ms > 0 ? new DelayedEventStore(store, ms, options.onReplayRead) : store;
}

/**
 * A slowed store behind a {@link ReplayFence} unless `options.replayFence` is `false` (a store
 * that is not slowed needs none: replay and registration fall in one turn of the event loop).
 */
function networked(store: EventStoreLike, options: StartOptions, fence: boolean): EventStoreLike {
  const slow = delayed(store, options);
  if (slow === store || !fence || options.replayFence === false) return slow;
  const fenced = new ReplayFence(slow);
  return options.onFencedWrite ? toldOfWrites(fenced, options.onFencedWrite) : fenced;
}

/** `store`, calling `told` each time it is handed an event, before `store` acts on it. */
function toldOfWrites(store: EventStoreLike, told: () => void): EventStoreLike {
  const get = store.getStreamIdForEventId?.bind(store);
  return {
    storeEvent: (streamId, message) => {
      told();
      return store.storeEvent(streamId, message);
    },
    replayEventsAfter: (lastEventId, sink) => store.replayEventsAfter(lastEventId, sink),
    ...(get ? { getStreamIdForEventId: get } : {}),
  };
}

const STORES: Record<StoreKind, StoreSpec> = {
  example: {
    label: 'SDK example InMemoryEventStore',
    codec: OPAQUE_IDS,
    evict: false,
    scope: 'one store per process, shared by all sessions (as in the SDK ssePollingExample)',
    make: (_o, state) => shared(state, () => new SdkExampleStore() as unknown as EventStoreLike),
  },
  ring: {
    label: 'ring buffer (usual shape)',
    codec: patternCodec(RING_ID_PATTERN, 'global'),
    evict: true,
    scope: 'one store per process, shared by all sessions',
    make: (o, state) => shared(state, () => new RingBufferEventStore(o.retention)),
  },
  continuity: {
    label: 'ContinuityEventStore',
    codec: patternCodec(CONTINUITY_ID_PATTERN),
    evict: true,
    storeDelay: true,
    scope: 'one store per session',
    make: (o) => networked(new ContinuityEventStore({ capacity: o.retention }), o, true),
  },
  'continuity-nofence': {
    label: 'ContinuityEventStore, no replay fence',
    codec: patternCodec(CONTINUITY_ID_PATTERN),
    evict: true,
    storeDelay: true,
    scope: 'one store per session; slowed without a ReplayFence (the window left open)',
    make: (o) => networked(new ContinuityEventStore({ capacity: o.retention }), o, false),
  },
};

function createV1Session(
  sessionId: string,
  options: StartOptions,
  store: EventStoreLike,
): Promise<HostedSession> {
  const server = v1ToolServer('conformance-v1', '1.0.0', options.control);
  const transport = new NodeTransportV1({
    sessionIdGenerator: () => sessionId,
    eventStore: store as never,
    keepAliveMs: options.keepAliveMs,
  });
  return server.connect(transport).then(() => ({
    handle: (req: IncomingMessage, res: ServerResponse, body: unknown) =>
      transport.handleRequest(req, res, body),
    close: async () => {
      await transport.close();
      await server.close();
    },
  }));
}

/** Serves a web-standard `Response` on a Node `ServerResponse`, honouring backpressure. */
export async function sendWebResponse(response: Response, res: ServerResponse): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((v, k) => (headers[k] = v));
  res.writeHead(response.status, headers);
  if (!response.body) {
    res.end();
    return;
  }
  res.flushHeaders();
  const reader = response.body.getReader();
  let closed = false;
  res.on('close', () => {
    closed = true;
    reader.cancel().catch(() => {});
  });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || closed) break;
      if (!res.write(value)) {
        await new Promise<void>((r) => {
          const done = () => {
            res.off('drain', done);
            res.off('close', done);
            r();
          };
          res.on('drain', done);
          res.on('close', done);
        });
      }
    }
  } catch {
    // the stream was cancelled: the connection is gone
  }
  if (!closed) res.end();
}

/** Builds a web-standard `Request` from a Node request whose body was already read. */
export function toWebRequest(req: IncomingMessage, body: unknown): Request {
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) {
    if (typeof v === 'string') headers.set(k, v);
    else if (Array.isArray(v)) for (const x of v) headers.append(k, x);
  }
  const init: RequestInit = { method: req.method ?? 'GET', headers };
  if (body !== undefined && req.method === 'POST') init.body = JSON.stringify(body);
  return new Request(`http://${req.headers.host ?? '127.0.0.1'}${req.url ?? '/'}`, init);
}

function createV2Session(
  sessionId: string,
  options: StartOptions,
  store: EventStoreLike,
): Promise<HostedSession> {
  const server = v2ToolServer('conformance-v2', '2.0.0', options.control);
  const transport = new WebTransportV2({
    sessionIdGenerator: () => sessionId,
    eventStore: store as never,
    keepAliveMs: options.keepAliveMs,
  });
  return server.connect(transport).then(() => ({
    handle: async (req: IncomingMessage, res: ServerResponse, body: unknown) => {
      const response = await transport.handleRequest(toWebRequest(req, body), {
        parsedBody: body,
      });
      await sendWebResponse(response, res);
    },
    close: async () => {
      await transport.close();
      await server.close();
    },
  }));
}

function capabilitiesOf(spec: StoreSpec): AdapterCapabilities {
  const missing: AdapterCapabilities['missing'] = {
    ...(spec.evict
      ? {}
      : { evict: `the ${spec.label} never evicts (unbounded): nothing to resume after` }),
    ...(spec.storeDelay
      ? {}
      : {
          storeDelay:
            `the ${spec.label} is not slowed (only the ContinuityEventStore rows are: one ` +
            "store suffices to measure the transport's window between replay and registration)",
        }),
  };
  return {
    evict: spec.evict,
    keepalive: true,
    ...(spec.storeDelay ? { storeDelay: true } : {}),
    ...(Object.keys(missing).length > 0 ? { missing } : {}),
  };
}

/**
 * The SDK 1.x server (`@modelcontextprotocol/sdk`) with the given store; `pinProtocolVersion`
 * makes it speak only that version (see `SessionHostOptions.pinProtocolVersion`).
 */
export function sdkV1Adapter(
  kind: StoreKind | StoreSpec,
  pinProtocolVersion?: string,
): SessionHost {
  const spec = typeof kind === 'string' ? STORES[kind] : kind;
  const pin = pinProtocolVersion ? `, pinned to protocol ${pinProtocolVersion}` : '';
  return new SessionHost({
    name: `sdk ${packageVersion('@modelcontextprotocol/sdk')} + ${spec.label}${pin}`,
    versions: { '@modelcontextprotocol/sdk': packageVersion('@modelcontextprotocol/sdk') },
    idCodec: spec.codec,
    capabilities: capabilitiesOf(spec),
    setup: `StreamableHTTPServerTransport (Node), ${spec.label}, ${spec.scope}${pin}`,
    ...(pinProtocolVersion ? { pinProtocolVersion } : {}),
    createSession: (sid, options, state) =>
      createV1Session(sid, options, spec.make(options, state)),
  });
}

/** The SDK 2.x server (`@modelcontextprotocol/server`) with the given store. */
export function sdkV2Adapter(kind: StoreKind): SessionHost {
  const spec = STORES[kind];
  return new SessionHost({
    name: `server ${packageVersion('@modelcontextprotocol/server')} + ${spec.label}`,
    versions: { '@modelcontextprotocol/server': packageVersion('@modelcontextprotocol/server') },
    idCodec: spec.codec,
    capabilities: capabilitiesOf(spec),
    setup: `WebStandardStreamableHTTPServerTransport (bridged to node:http), ${spec.label}, ${spec.scope}`,
    createSession: (sid, options, state) =>
      createV2Session(sid, options, spec.make(options, state)),
  });
}
