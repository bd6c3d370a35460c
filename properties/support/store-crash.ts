/**
 * The crash-and-restart case of the store contract, for any store: appends to several streams,
 * a crash in the middle of concurrent appends, a store rebuilt after it, more appends (to the
 * old streams and to new ones), then a resume from pre-crash cursors. It tallies every id
 * handed out and checks the contract:
 *
 * - no id string handed out twice for different messages;
 * - every pre-crash cursor is refused before anything is sent, or replayed exactly (the
 *   acknowledgment, then every event after the cursor, contiguous, each the message the id was
 *   issued for);
 * - a replay never carries another stream's events.
 */
import {
  CONTINUITY_ID_PATTERN,
  isReplayAck,
  UnreplayableCursorError,
  type EventStoreLike,
  type StoredMessage,
} from '../../src/runtime/index.js';

/** What one crash run measured. */
export interface CrashTally {
  /** Ids handed out (before and after the crash). */
  issued: number;
  /** Ids handed out a second time for a different message. */
  reissued: number;
  /** Pre-crash cursors resumed after the crash. */
  cursors: number;
  refused: number;
  replayed: number;
  /** Every breach of the contract, one line each (empty when it held). */
  violations: string[];
}

/** How a run crashes and rebuilds its store. */
export interface CrashPlan {
  /** The store before the crash. */
  before(): Promise<EventStoreLike>;
  /** A point-in-time snapshot, taken after the first phase (RDB: `SAVE`). */
  snapshot?(): Promise<void>;
  /** The crash itself, called while appends are in flight. */
  crash(): Promise<void>;
  /** The store after the crash (a restarted Redis, a rebuilt process). */
  after(): Promise<EventStoreLike>;
}

const message = (stream: string, i: number): StoredMessage => ({
  jsonrpc: '2.0',
  method: 'm',
  params: { s: stream, i },
});

/** Every id handed out, with its stream and message. */
class IssueLog {
  readonly byId = new Map<string, { stream: string; json: string }>();
  readonly ids: string[] = [];
  readonly attempted = new Set<string>();
  reissued = 0;
  private n = 0;

  /** Appends the next message to `stream`; the id, or `null` when the store failed. */
  async append(store: EventStoreLike, stream: string): Promise<string | null> {
    const m = message(stream, ++this.n);
    const json = JSON.stringify(m);
    this.attempted.add(json);
    let id: string;
    try {
      id = await store.storeEvent(stream, m);
    } catch {
      return null;
    }
    const seen = this.byId.get(id);
    if (seen && seen.json !== json) this.reissued += 1;
    if (!seen) this.byId.set(id, { stream, json });
    this.ids.push(id);
    return id;
  }
}

/** `label` and `seq` of a store id (`null`: not one). */
function parse(id: string): { label: string; seq: number } | null {
  const m = CONTINUITY_ID_PATTERN.exec(id);
  return m?.groups ? { label: m.groups.stream!, seq: Number(m.groups.seq) } : null;
}

/** Resumes `cursor` on `store` and checks the answer against what was issued. */
async function resumeOne(
  store: EventStoreLike,
  log: IssueLog,
  cursor: string,
  tally: CrashTally,
): Promise<void> {
  const stream = log.byId.get(cursor)!.stream;
  const at = parse(cursor)!;
  const sent: { id: string; message: StoredMessage }[] = [];
  const bad = (what: string) => tally.violations.push(`${cursor} (stream ${stream}): ${what}`);
  try {
    await store.replayEventsAfter(cursor, {
      send: async (id, message) => void sent.push({ id, message }),
    });
  } catch (e) {
    if (e instanceof UnreplayableCursorError && sent.length === 0) tally.refused += 1;
    else bad(`failed after sending ${sent.length}: ${String(e)}`);
    return;
  }
  tally.replayed += 1;
  if (sent[0]?.id !== '' || !isReplayAck(sent[0].message)) bad('no acknowledgment first');
  let seq = at.seq;
  for (const { id, message } of sent.slice(1)) {
    const p = parse(id);
    seq += 1;
    if (p?.label !== at.label || p.seq !== seq) bad(`sent ${id} where seq ${seq} was owed`);
    const json = JSON.stringify(message);
    if ((message.params as { s?: string } | undefined)?.s !== stream) {
      bad(`sent another stream's event as ${id}: ${json}`);
    }
    const issued = log.byId.get(id);
    // An id never handed out is an append in flight at the crash whose answer was lost.
    if (issued ? issued.json !== json : !log.attempted.has(json)) {
      bad(`sent ${id} with ${json}, not the message it was issued for`);
    }
  }
  const sentIds = new Set(sent.map((s) => s.id));
  for (const id of log.ids) {
    const p = parse(id);
    if (p?.label === at.label && p.seq > at.seq && !sentIds.has(id)) bad(`${id} missing`);
  }
}

/**
 * Runs the plan: 150 appends to streams A-C, the snapshot, 60 to A-D (D is new), then 8
 * concurrent appenders to A-D until 100 more succeeded, when the crash comes (appends are in
 * flight; each appender stops at its first failure); then the rebuilt store takes 150 appends
 * to E-A (E, new, first), and every 7th pre-crash id and each stream's last are resumed.
 */
export async function crashRun(plan: CrashPlan): Promise<CrashTally> {
  const log = new IssueLog();
  const first = await plan.before();
  const streams = ['A', 'B', 'C', 'D', 'E'];
  for (let i = 0; i < 150; i++) await log.append(first, streams[i % 3]!);
  await plan.snapshot?.();
  for (let i = 0; i < 60; i++) await log.append(first, streams[i % 4]!);
  let ok = 0;
  let crashed: Promise<void> | undefined;
  await Promise.all(
    Array.from({ length: 8 }, async (_, w) => {
      for (let i = 0; crashed === undefined; i++) {
        const id = await log.append(first, streams[(w + i) % 4]!);
        if (id === null) break;
        if (++ok === 100) crashed = plan.crash();
      }
    }),
  );
  await crashed;
  const preCrash = [...log.ids];
  const second = await plan.after();
  // The new stream first: after a full loss it must not take A's number.
  for (let i = 0; i < 150; i++) await log.append(second, streams[4 - (i % 5)]!);
  const last = new Map<string, string>();
  for (const id of preCrash) last.set(log.byId.get(id)!.stream, id);
  const cursors = new Set([...preCrash.filter((_, i) => i % 7 === 0), ...last.values()]);
  const tally: CrashTally = {
    issued: log.ids.length,
    reissued: log.reissued,
    cursors: cursors.size,
    refused: 0,
    replayed: 0,
    violations: [],
  };
  for (const cursor of cursors) await resumeOne(second, log, cursor, tally);
  return tally;
}
