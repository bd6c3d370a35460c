/**
 * Black-box mode: a server already running at a loopback URL, written in any language. The
 * harness reaches it only over HTTP: the test tool's holds are tool calls
 * (`count_release`, `count_status`; docs/conformance.md, "The test tool contract"), restarts and
 * evictions are shell commands the user gives (`--restart-cmd`, `--evict-cmd`), run between
 * steps with a timeout, and connections are cut by a loopback TCP front the harness puts
 * before the server. A scenario whose hook is missing is `n/a`, and the reason names the hook.
 */
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import {
  HarnessError,
  OPAQUE_IDS,
  type AdapterCapabilities,
  type IdCodec,
  type ImplementationAdapter,
} from '../types.js';
import { TcpFront } from './tcp-front.js';
import { RecordingClient } from '../recording/recorder.js';
import { killAfter } from '../kill-after.js';

/** What the black-box adapter is told about the server. */
export interface UrlAdapterOptions {
  /** The server's MCP endpoint, `http://127.0.0.1:PORT/path` (loopback only). */
  url: string;
  /** Name of the row (default: the URL). */
  name?: string;
  /** Shell command that restarts the server at the same URL, losing its state. */
  restartCmd?: string;
  /** Shell command that makes the server forget its oldest events. */
  evictCmd?: string;
  /** Bound on each hook, and on the server answering again after a restart (ms). */
  hookTimeoutMs?: number;
  /** The server's keepalive interval (ms), when known: `reader-stall` runs with it. */
  keepAliveMs?: number;
  /** Why the interval is unknown, when it was looked for (`measureKeepalive`). */
  keepaliveMissing?: string;
  /** How the server's ids encode the sequence (default: opaque). */
  idCodec?: IdCodec;
}

/** Why a URL cannot be tested; `null` when it is a loopback http URL. */
export function checkLoopbackUrl(url: string): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return `--url ${JSON.stringify(url)} is not a URL`;
  }
  if (u.protocol !== 'http:') return `--url must be http:// (got ${u.protocol})`;
  if (u.hostname !== '127.0.0.1' && u.hostname !== 'localhost') {
    return `--url must be on loopback (127.0.0.1), got ${u.hostname}: the harness cuts connections and restarts servers, so it only tests local ones`;
  }
  if (u.port === '') return `--url must name its port (http://127.0.0.1:PORT/...)`;
  return null;
}

/** The result of a hook: exit status and the tail of what it printed. */
export interface HookRun {
  /** Exit status (`null`: killed, or it could not start). */
  code: number | null;
  /** The last 2,000 characters it printed (stdout and stderr). */
  output: string;
  /** It ran over its bound and was killed. */
  timedOut: boolean;
}

/** Runs `cmd` in a shell, bounded by `timeoutMs` (the whole process group is killed then). */
export function runHook(cmd: string, timeoutMs: number): Promise<HookRun> {
  return new Promise((resolve) => {
    const child = spawn(cmd, { shell: true, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const keep = (b: Buffer) => (output = (output + b.toString('utf8')).slice(-2000));
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    let timedOut = false;
    const timer = killAfter(child, timeoutMs, () => (timedOut = true));
    child.on('error', (e) => {
      clearTimeout(timer);
      resolve({ code: null, output: e.message, timedOut });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output: output.trim(), timedOut });
    });
  });
}

/** Resolves once `port` on 127.0.0.1 accepts a connection; rejects after `timeoutMs`. */
export async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1');
      s.once('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() >= deadline) {
      throw new HarnessError(`127.0.0.1:${port} did not accept connections within ${timeoutMs} ms`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** How long {@link measureKeepalive} watches a quiet call stream for two keepalives (ms). */
export const KEEPALIVE_PROBE_MS = 20_000;

/**
 * The server's keepalive interval, measured (`--keepalive-ms auto`): a session calls `count`
 * with nothing to emit and a pause of `boundMs`, and the time between the first two comment
 * lines on that quiet call stream is the interval. `null` when fewer than two came within
 * `boundMs` (a server without keepalives, or with a longer interval), or the call was not an
 * SSE stream. The session is closed after.
 */
export async function measureKeepalive(
  url: string,
  options: { boundMs?: number; timeoutMs: number; protocolVersion: string },
): Promise<number | null> {
  const boundMs = options.boundMs ?? KEEPALIVE_PROBE_MS;
  const client = new RecordingClient(url, options.timeoutMs);
  client.requestedVersion = options.protocolVersion;
  await client.initialize();
  const tag = `keepalive-${Math.random().toString(36).slice(2, 8)}`;
  const answer = await client.call({ tag, n: 0, pauseMs: boundMs });
  try {
    if (answer.kind !== 'sse') return null;
    const deadline = Date.now() + boundMs;
    let first: number | undefined;
    for (;;) {
      const left = deadline - Date.now();
      if (left <= 0) return null;
      const item = await answer.stream.next(left);
      if (item.kind === 'comment') {
        const now = Date.now();
        if (first === undefined) first = now;
        else return Math.max(1, now - first);
      } else if (item.kind === 'end' || item.kind === 'error' || item.kind === 'timeout') {
        return null;
      }
    }
  } finally {
    if (answer.kind === 'sse') answer.stream.abort();
    await client.close().catch(() => {});
  }
}

/** The black-box adapter for the server at `options.url`. */
export function urlAdapter(options: UrlAdapterOptions): ImplementationAdapter {
  const problem = checkLoopbackUrl(options.url);
  if (problem !== null) throw new HarnessError(problem);
  const target = new URL(options.url);
  const backendPort = Number(target.port);
  const hookTimeoutMs = options.hookTimeoutMs ?? 10_000;
  const front = new TcpFront();
  front.backendPort = backendPort;

  const hook = async (flag: string, cmd: string): Promise<void> => {
    const run = await runHook(cmd, hookTimeoutMs);
    const tail = run.output ? `: ${run.output.split('\n').at(-1)?.slice(0, 160)}` : '';
    if (run.timedOut) {
      throw new HarnessError(`${flag} did not finish within ${hookTimeoutMs} ms${tail}`);
    }
    if (run.code !== 0) throw new HarnessError(`${flag} exited ${run.code ?? 'abnormally'}${tail}`);
  };

  const capabilities: AdapterCapabilities = {
    evict: options.evictCmd !== undefined,
    restart: options.restartCmd !== undefined,
    keepalive: false,
    ...(options.keepAliveMs !== undefined ? { keepAliveMs: options.keepAliveMs } : {}),
    missing: {
      evict: 'no --evict-cmd given: the harness cannot make the server forget events',
      restart: 'no --restart-cmd given: the harness cannot restart the server',
      keepalive:
        options.keepaliveMissing ??
        "no --keepalive-ms given: the server's keepalive interval is unknown, so the stall " +
          'cannot be sized against it',
      storeDelay:
        'a server at a URL cannot be slowed from outside; slow-store-replay needs an adapter ' +
        '(--adapter) that wraps its event store in a delay',
    },
  };
  const hooks = [
    options.restartCmd !== undefined ? 'restart hook' : '',
    options.evictCmd !== undefined ? 'evict hook' : '',
  ].filter(Boolean);

  return {
    name: options.name ?? `url ${options.url}`,
    versions: {},
    idCodec: options.idCodec ?? OPAQUE_IDS,
    capabilities,
    setup: `black box at ${options.url}, behind a loopback TCP front${hooks.length ? `; ${hooks.join(', ')}` : ''}`,
    toolControl: 'remote',
    async start() {
      await waitForPort(backendPort, hookTimeoutMs);
      const port = await front.listen();
      return `http://127.0.0.1:${port}${target.pathname}${target.search}`;
    },
    async restart() {
      if (options.restartCmd === undefined) throw new HarnessError('no --restart-cmd given');
      front.dropConnections();
      await hook('--restart-cmd', options.restartCmd);
      await waitForPort(backendPort, hookTimeoutMs);
    },
    async evict() {
      if (options.evictCmd !== undefined) await hook('--evict-cmd', options.evictCmd);
    },
    dropConnections() {
      front.dropConnections();
    },
    async stop() {
      await front.close();
    },
  };
}
