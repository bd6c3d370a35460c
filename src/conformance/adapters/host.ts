/**
 * The in-process HTTP host shared by the SDK adapters: a Node `http` server on 127.0.0.1
 * (port 0) routing requests to per-session transports the way the SDK's own examples do
 * (`ssePollingExample`): a known `Mcp-Session-Id` goes to its transport, an unknown one gets
 * 404, an `initialize` without one creates a session. "Restart" drops every session and every
 * in-memory store and cuts open connections while keeping the port, as a redeploy behind the
 * same address would.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { serveLoopback } from './listen.js';
import type {
  AdapterCapabilities,
  IdCodec,
  ImplementationAdapter,
  StartOptions,
} from '../types.js';

/** A session's transport and server, as the host needs them. */
export interface HostedSession {
  handle(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void>;
  close(): Promise<void>;
}

/** Request bodies above this are refused (the test tool's requests are tiny). */
const MAX_BODY = 1 << 20;

/** Reads a request body, bounded. */
export async function readBody(req: IncomingMessage): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) return null;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/**
 * The JSON body of a POST (`undefined` for other methods), or `null` once a 413 or a
 * JSON-RPC parse error has been answered.
 */
export async function readPostBody(
  req: IncomingMessage,
  res: ServerResponse,
): Promise<{ body: unknown } | null> {
  if (req.method !== 'POST') return { body: undefined };
  const raw = await readBody(req);
  if (raw === null) {
    jsonError(res, 413, -32000, 'Payload too large');
    return null;
  }
  try {
    return { body: JSON.parse(raw.toString('utf8')) };
  } catch {
    jsonError(res, 400, -32700, 'Parse error');
    return null;
  }
}

/** Writes a JSON-RPC error answer (as the SDK examples do). */
export function jsonError(res: ServerResponse, status: number, code: number, message: string) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

function isInitialize(body: unknown): boolean {
  const one = (m: unknown) =>
    typeof m === 'object' && m !== null && (m as { method?: unknown }).method === 'initialize';
  return Array.isArray(body) ? body.some(one) : one(body);
}

/** `body` with every `initialize` asking for `version` (the SDK server answers what it is asked). */
function pinInitialize(body: unknown, version: string): unknown {
  const pin = (m: unknown): unknown =>
    typeof m === 'object' && m !== null && (m as { method?: unknown }).method === 'initialize'
      ? {
          ...m,
          params: { ...(m as { params?: object }).params, protocolVersion: version },
        }
      : m;
  return Array.isArray(body) ? body.map(pin) : pin(body);
}

/** Options of a {@link SessionHost}. */
export interface SessionHostOptions {
  name: string;
  versions: Record<string, string>;
  idCodec: IdCodec;
  capabilities: AdapterCapabilities;
  setup: string;
  /**
   * Makes the host speak only this protocol version, as a server built before later versions
   * would: `initialize` is answered with it whatever the client asks, and a request whose
   * `MCP-Protocol-Version` header names another version is refused 400 (what a strict server
   * of that version answers a client that ignores the negotiated version).
   */
  pinProtocolVersion?: string;
  /**
   * Creates one session: its transport bound to `sessionId`, connected to a server serving the
   * test tool. `state` is the per-process state (a fresh object after each restart).
   */
  createSession(
    sessionId: string,
    options: StartOptions,
    state: ProcessState,
  ): Promise<HostedSession>;
}

/** Per-process state of a host: whatever the adapter keeps across sessions (a shared store). */
export type ProcessState = Map<string, unknown>;

/** An {@link ImplementationAdapter} backed by an in-process HTTP server. */
export class SessionHost implements ImplementationAdapter {
  readonly name: string;
  readonly versions: Record<string, string>;
  readonly idCodec: IdCodec;
  readonly capabilities: AdapterCapabilities;
  readonly setup: string;
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private sessions = new Map<string, HostedSession>();
  private state: ProcessState = new Map();
  private options: StartOptions | undefined;

  constructor(private readonly spec: SessionHostOptions) {
    this.name = spec.name;
    this.versions = spec.versions;
    this.idCodec = spec.idCodec;
    this.capabilities = spec.capabilities;
    this.setup = spec.setup;
  }

  /** The per-process state (for adapters that expose eviction). */
  get processState(): ProcessState {
    return this.state;
  }

  async start(options: StartOptions): Promise<string> {
    this.options = options;
    const { server, port } = await serveLoopback((req, res) => this.route(req, res), this.sockets);
    this.server = server;
    return `http://127.0.0.1:${port}/mcp`;
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const options = this.options;
    if (!options) return jsonError(res, 503, -32000, 'not started');
    const parsed = await readPostBody(req, res);
    if (parsed === null) return;
    let body = parsed.body;
    const pin = this.spec.pinProtocolVersion;
    if (pin !== undefined) {
      const header = req.headers['mcp-protocol-version'];
      if (typeof header === 'string' && header !== pin) {
        return jsonError(res, 400, -32000, `Bad Request: Protocol version mismatch (${header})`);
      }
      body = pinInitialize(body, pin);
    }
    const sid = req.headers['mcp-session-id'];
    const sessionId = Array.isArray(sid) ? sid[0] : sid;
    if (sessionId !== undefined) {
      const session = this.sessions.get(sessionId);
      if (!session) return jsonError(res, 404, -32001, 'Session not found');
      return session.handle(req, res, body);
    }
    if (req.method === 'POST' && isInitialize(body)) {
      const id = randomUUID();
      const session = await this.spec.createSession(id, options, this.state);
      this.sessions.set(id, session);
      return session.handle(req, res, body);
    }
    return jsonError(res, 400, -32000, 'Bad Request: No valid session ID provided');
  }

  private async closeSessions(): Promise<void> {
    const sessions = [...this.sessions.values()];
    this.sessions = new Map();
    await Promise.allSettled(sessions.map((s) => s.close()));
  }

  async restart(): Promise<void> {
    await this.closeSessions();
    this.dropConnections();
    this.state = new Map();
  }

  async evict(): Promise<void> {
    // Retention is set through StartOptions.retention; nothing else to force.
  }

  dropConnections(): void {
    for (const s of this.sockets) s.destroy();
  }

  async stop(): Promise<void> {
    await this.closeSessions();
    this.dropConnections();
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((r) => server.close(() => r()));
  }
}
