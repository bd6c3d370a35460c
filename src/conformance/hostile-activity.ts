/**
 * What the hostile server records of the client in front of it (hostile-server.ts): each request
 * it saw ({@link SeenRequest}), kept as running counts by {@link ActivityLog} (so a long-lived
 * `serve` holds no request list), per session ({@link SessionActivity}) and in all
 * ({@link ClientActivity}): the calls of `count`, the cursors sent, the GETs per second after the
 * first cut, and what was served on each call's stream. {@link describeActivity} prints it as a
 * line; hostile-wire.ts judges it.
 */
/** One request the server saw. */
export interface SeenRequest {
  /** Milliseconds since the server started. */
  t: number;
  method: string;
  /** The path, when it is not the server's MCP path (`/mcp`): answered 404, never counted. */
  path?: string;
  /** The `Mcp-Session-Id` the request carried, if any. */
  session?: string;
  /** The JSON-RPC method of a POST, when it had one. */
  rpc?: string;
  /** The tool a `tools/call` named. */
  tool?: string;
  /** `Last-Event-ID` of a GET (`null`: none). */
  cursor?: string | null;
  /** The call stream a `tools/call` of `count` opened (`c1`, …). */
  stream?: string;
  /** The status it was answered. */
  status: number;
}

/** What one session (one client, until it re-initializes) did. */
export interface SessionActivity {
  session: string;
  /** Its calls of `count`, by stream (`c1`, `c2`, …). */
  calls: string[];
  reconnects: number;
  /** The cursors it sent (the first 16). */
  cursors: string[];
  /** Its GETs without `Last-Event-ID` after the first cut. */
  cursorDropped: number;
  /** Its most GETs in one second after the first cut. */
  maxGetsPerSecond: number;
}

/** What the server saw the client do, in words a report prints. */
export interface ClientActivity {
  requests: number;
  /** `tools/call` of `count`: more than one is a re-issued call. */
  calls: number;
  /** GETs with `Last-Event-ID`. */
  reconnects: number;
  /** The cursors sent, in order (the first {@link MAX_CURSORS}). */
  cursors: string[];
  /** GETs without `Last-Event-ID` after the first cut: the client dropped its cursor. */
  cursorDropped: number;
  /**
   * The most GETs on the MCP path in any one-second window after the first cut, in any one
   * session (a request without a session counts as its own): what a retry storm is measured on.
   * Requests to other paths (OAuth discovery, `/.well-known/…`) and GETs before the fault
   * (a proxy's probes at start) are no reconnects and never count.
   */
  maxGetsPerSecond: number;
  /** `initialize` requests. */
  initializes: number;
  /** Requests to a path other than the MCP path (answered 404). */
  otherPaths: number;
  /**
   * What the server wrote on each call's stream (`c1#1`, …, `c1:result`), in order, over every
   * connection: what a client was served, whatever it shows of it (a progress-blind client
   * surfaces only the result; it is judged from this).
   */
  served: Record<string, string[]>;
}

/** The most cursors {@link ClientActivity.cursors} keeps. */
export const MAX_CURSORS = 64;

/**
 * The activity, kept as counts as requests come (so a long-lived `serve` holds no request
 * list): {@link note} each request in order, {@link cut} at the first fault.
 */
export class ActivityLog {
  private requests = 0;
  private calls = 0;
  private reconnects = 0;
  private readonly cursors: string[] = [];
  private cursorDropped = 0;
  private maxGets = 0;
  private initializes = 0;
  private otherPaths = 0;
  private cutAt: number | null = null;
  /** Per session: the times of its GETs in the last second (after the cut). */
  private readonly windows = new Map<string, number[]>();
  /** Per call stream: what was served on it (the newest {@link maxStreams} streams). */
  private readonly served = new Map<string, string[]>();
  /** Per session, the newest {@link maxStreams}: what it did. */
  private readonly bySession = new Map<string, SessionActivity>();

  constructor(private readonly maxStreams = 64) {}

  /** The first fault happened at `t` (ms since start); GETs from then on count as retries. */
  cut(t: number): void {
    this.cutAt ??= t;
  }

  /** When the first fault happened, if it did. */
  get cutTime(): number | null {
    return this.cutAt;
  }

  /** The record of session `id` (created, and the oldest dropped beyond the bound). */
  private session(id: string): SessionActivity {
    let a = this.bySession.get(id);
    if (a === undefined) {
      a = {
        session: id,
        calls: [],
        reconnects: 0,
        cursors: [],
        cursorDropped: 0,
        maxGetsPerSecond: 0,
      };
      this.bySession.set(id, a);
      if (this.bySession.size > this.maxStreams) {
        this.bySession.delete(this.bySession.keys().next().value!);
      }
    }
    return a;
  }

  /** Counts one request the server saw (its session's record too, and GETs after the cut). */
  note(r: SeenRequest): void {
    this.requests++;
    if (r.path !== undefined) {
      this.otherPaths++;
      return;
    }
    const mine = r.session !== undefined ? this.session(r.session) : undefined;
    if (r.rpc === 'tools/call' && r.tool === 'count') {
      this.calls++;
      if (r.stream !== undefined && mine && mine.calls.length < MAX_CURSORS)
        mine.calls.push(r.stream);
    }
    if (r.rpc === 'initialize') this.initializes++;
    if (r.method !== 'GET') return;
    if (r.cursor) {
      this.reconnects++;
      if (this.cursors.length < MAX_CURSORS) this.cursors.push(r.cursor);
      if (mine) {
        mine.reconnects++;
        if (mine.cursors.length < 16) mine.cursors.push(r.cursor);
      }
    }
    if (this.cutAt === null || r.t < this.cutAt) return;
    if (!r.cursor) {
      this.cursorDropped++;
      if (mine) mine.cursorDropped++;
    }
    const key = r.session ?? '';
    const w = (this.windows.get(key) ?? []).filter((t) => r.t - t < 1000);
    w.push(r.t);
    this.windows.set(key, w);
    this.maxGets = Math.max(this.maxGets, w.length);
    if (mine) mine.maxGetsPerSecond = Math.max(mine.maxGetsPerSecond, w.length);
    if (this.windows.size > 1024) {
      for (const [k, ts] of this.windows) if (r.t - ts.at(-1)! >= 1000) this.windows.delete(k);
    }
  }

  /** Records that `item` (`c1#3`, `c1:result`) was written on `stream`'s connection. */
  serve(stream: string, item: string): void {
    let list = this.served.get(stream);
    if (list === undefined) {
      list = [];
      this.served.set(stream, list);
      if (this.served.size > this.maxStreams) this.served.delete(this.served.keys().next().value!);
    }
    list.push(item);
  }

  /** Each session that called `count`, oldest first. */
  sessions(): SessionActivity[] {
    return [...this.bySession.values()]
      .filter((a) => a.calls.length > 0)
      .map((a) => ({ ...a, calls: [...a.calls], cursors: [...a.cursors] }));
  }

  /** What the client did so far, as one record (copies: the log goes on counting). */
  activity(): ClientActivity {
    return {
      requests: this.requests,
      calls: this.calls,
      reconnects: this.reconnects,
      cursors: [...this.cursors],
      cursorDropped: this.cursorDropped,
      maxGetsPerSecond: this.maxGets,
      initializes: this.initializes,
      otherPaths: this.otherPaths,
      served: Object.fromEntries([...this.served].map(([k, v]) => [k, [...v]])),
    };
  }
}

/** Sums up `seen` (in order), the first fault at `cutAt`. */
export function activityOf(seen: readonly SeenRequest[], cutAt: number | null): ClientActivity {
  const log = new ActivityLog();
  if (cutAt !== null) log.cut(cutAt);
  for (const r of seen) log.note(r);
  return log.activity();
}

/** The activity as one line. */
export function describeActivity(a: ClientActivity): string {
  const cursors = a.cursors.length
    ? ` (cursors ${[...new Set(a.cursors)].slice(0, 4).join(', ')})`
    : '';
  return (
    `${a.calls} call${a.calls === 1 ? '' : 's'} of count${a.calls > 1 ? ' (re-issued)' : ''}, ` +
    `${a.reconnects} reconnect${a.reconnects === 1 ? '' : 's'}${cursors}` +
    (a.cursorDropped ? `, ${a.cursorDropped} GET(s) without the cursor after the cut` : '') +
    `, at most ${a.maxGetsPerSecond} GET/s after the cut, ${a.initializes} initialize` +
    (a.otherPaths ? `, ${a.otherPaths} request(s) to other paths (404)` : '')
  );
}
