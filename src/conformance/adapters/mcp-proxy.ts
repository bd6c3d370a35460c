/**
 * The `mcp-proxy` adapter: its `startHTTPServer` serving the test tool (a `@modelcontextprotocol/
 * server` 2.x `McpServer` per session, as `createServer` returns it) with its default event
 * store: a fresh bounded `InMemoryEventStore` per session (`eventStoreMaxEvents` set to the
 * scenario's retention so eviction happens within the scenario). `startHTTPServer` neither
 * accepts port 0 usefully (it does not report the bound port) nor exposes its sockets, so the
 * backend gets a free loopback port and a {@link TcpFront} before it gives the harness a stable
 * URL across restarts and a way to cut connections. Its keepalive interval is fixed (15 s).
 */
import { startHTTPServer } from 'mcp-proxy';
import { OPAQUE_IDS, type ImplementationAdapter, type StartOptions } from '../types.js';
import { packageVersion } from '../versions.js';
import { freePort, TcpFront } from './tcp-front.js';
import { v2ToolServer } from './tool-servers.js';

type Console = Pick<typeof console, 'log' | 'info' | 'warn' | 'error'>;

/** mcp-proxy logs every request with `console.log('[mcp-proxy] …')`; keep the report readable. */
function muteProxyLogs(): () => void {
  const saved: Console = {
    log: console.log,
    info: console.info,
    warn: console.warn,
    error: console.error,
  };
  for (const k of Object.keys(saved) as (keyof Console)[]) {
    console[k] = (...args: unknown[]) => {
      if (typeof args[0] === 'string' && args[0].startsWith('[mcp-proxy]')) return;
      saved[k](...args);
    };
  }
  return () => Object.assign(console, saved);
}

/** mcp-proxy's `startHTTPServer` with its default (per-session, bounded) event store. */
export function mcpProxyAdapter(): ImplementationAdapter {
  const front = new TcpFront();
  let backend: { close(): Promise<void> } | undefined;
  let options: StartOptions | undefined;
  let unmute: (() => void) | undefined;
  const version = packageVersion('mcp-proxy');

  const startBackend = async () => {
    const o = options!;
    front.backendPort = await freePort();
    backend = await startHTTPServer({
      createServer: async () => v2ToolServer('conformance-mcp-proxy', '1.0.0', o.control),
      host: '127.0.0.1',
      port: front.backendPort,
      eventStoreMaxEvents: o.retention,
    });
  };

  return {
    name: `mcp-proxy ${version} (default store)`,
    versions: {
      'mcp-proxy': version,
      '@modelcontextprotocol/server': packageVersion('@modelcontextprotocol/server'),
    },
    idCodec: OPAQUE_IDS,
    capabilities: {
      evict: true,
      keepalive: false,
      missing: {
        // Read from the packages, not assumed: startHTTPServer has no keepalive option, and the
        // transport it builds falls back to @modelcontextprotocol/server's
        // DEFAULT_SSE_KEEP_ALIVE_MS (15 s), so five intervals of stall would take over a minute.
        keepalive:
          'mcp-proxy: startHTTPServer takes no SSE keepalive option; its transport keeps the ' +
          "server package's default interval (15 s), too slow to stall through five of them",
      },
    },
    setup:
      'startHTTPServer, default InMemoryEventStore per session (eventStoreMaxEvents = retention), ' +
      'behind a loopback TCP front',
    async start(o) {
      options = o;
      unmute = muteProxyLogs();
      const port = await front.listen();
      await startBackend();
      return `http://127.0.0.1:${port}/mcp`;
    },
    async restart() {
      front.dropConnections();
      await backend?.close();
      await startBackend();
    },
    async evict() {
      // Retention is eventStoreMaxEvents; nothing else to force.
    },
    dropConnections() {
      front.dropConnections();
    },
    async stop() {
      await front.close();
      await backend?.close().catch(() => {});
      backend = undefined;
      unmute?.();
      unmute = undefined;
    },
  };
}
