/**
 * The state abstraction of the exhaustive search: a world encoded as a list of small integers
 * such that two worlds with the same encoding have the same future, and the claims give them
 * the same verdict after any continuation. Two worlds are then one state.
 *
 * What is kept, and why it is enough:
 * - time is shifted so that now is 0: every deadline is kept relative to now; a time in the
 *   past is kept only as far as it can still matter (a last byte older than T arms an idle
 *   timer that fires at once whatever its age; an emission older than the tool's pace I no
 *   longer delays the next one; a write stall longer than T - K has already broken the
 *   keepalive condition), so quiet keepalive ticks lead back to the same state;
 * - emission times are kept only as "emitted in the same tick as the previous event", and only
 *   for the server that reorders same-tick replays (no other part of the world reads them);
 * - the ground truth, which only the claims read and which only grows, is kept as the claims
 *   see it: whether each condition of validity still holds (with the proof obligations still
 *   pending: which event must still come, and by when), whether the idle timer fired on a live
 *   connection, whether the session was really lost, whether a declared floor lied; and what
 *   was delivered, which is the prefix 1..cursor while NoUnprovenAcceptance holds;
 * - the machine's snapshot is interned by the machine cache: its identity is its value.
 *
 * `properties/verify/abstraction.test.ts` checks the claim: states that share an encoding get
 * the same verdicts, over every state of the small scope.
 */
import type { ClientSnapshot } from '../run.js';
import type { WorldConfig } from '../world/config.js';
import { TOOL_STREAM, type EventFrame, type Frame, type QueuedFrame } from '../world/frames.js';
import { snapshotKey } from '../world/machine-cache.js';
import type { World } from '../world/world.js';
import { hashString } from './fingerprint.js';
import { isValidConfig } from './scope.js';
import { delayedProofAt } from '../world/validity.js';

/** What the encoding needs besides the world. */
export interface EncodeContext {
  /** Index of the world's initial configuration among the search's roots. */
  root: number;
  /** The configuration-level conditions of validity hold (see `isValidConfig`). */
  validConfig: boolean;
  /**
   * Ids of interned machine snapshots: a 64-bit hash of the snapshot's value, as two 32-bit
   * lanes, so that every worker of a parallel search gives a snapshot the same id (an id by
   * order of encounter would differ between workers, and their fingerprints with it).
   */
  snapIds: Map<ClientSnapshot, readonly [number, number]>;
}

/** The context of a world started from root `root` with configuration `cfg`. */
export function encodeContext(
  root: number,
  cfg: WorldConfig,
  snapIds: Map<ClientSnapshot, readonly [number, number]>,
): EncodeContext {
  return { root, validConfig: isValidConfig(cfg), snapIds };
}

const epochNos = new Map<string, number>();
function epochNo(e: string): number {
  let n = epochNos.get(e);
  if (n === undefined) {
    n = Number(e.slice(1)) || 0;
    epochNos.set(e, n);
  }
  return n;
}

function eventBits(f: EventFrame): number {
  return (
    (f.stream === TOOL_STREAM ? 0 : 1) |
    (f.result ? 2 : 0) |
    (f.priming ? 4 : 0) |
    (epochNo(f.epoch) << 3)
  );
}

function pushFrame(out: number[], f: Frame): void {
  if (f.k === 'event') out.push(f.id, eventBits(f));
  else out.push(f.k === 'keepalive' ? -1 : -2);
}

const rel = (t: number | null, now: number): number =>
  t === null || !Number.isFinite(t) ? -1 : Math.max(0, t - now);
const age = (t: number, now: number, cap: number): number =>
  Number.isFinite(t) ? Math.min(now - t, cap) : cap;

/** Where the delivered list stands: the prefix 1..cursor (with its priming count), or all of it. */
function pushDelivered(w: World, out: number[]): void {
  const { delivered } = w.client;
  const truth = w.truth;
  let prefix = w.client.cursor === delivered.length;
  let priming = 0;
  for (let i = 0; i < delivered.length && prefix; i++) {
    const e = delivered[i]!;
    prefix =
      e.stream === TOOL_STREAM &&
      e.epoch === truth.epoch &&
      e.id === i + 1 &&
      truth.emittedAt[e.id] === e.emittedAt;
    if (e.priming) priming++;
  }
  if (prefix) {
    out.push(0, priming);
    return;
  }
  out.push(1, delivered.length);
  for (const e of delivered)
    out.push(e.id, eventBits(e), truth.emittedAt[e.id] === e.emittedAt ? 1 : 0);
}

/**
 * The world-level conditions of validity as far as the future can still change them; `[1]`
 * once one of them is broken for good (then nothing the claims read from the truth matters
 * but the declared-floor lie, which is kept apart).
 */
function pushValidity(w: World, out: number[]): void {
  const { cfg, truth } = w;
  const now = w.clock.now;
  const stallCap = Math.max(0, cfg.T - cfg.K);
  let broken =
    truth.cursorlessReconnects > 0 ||
    !(cfg.T > cfg.K + truth.longestWriteStall) ||
    truth.reconnects.some((r) => r.sessionAlive && !r.retained);
  // Proof obligations (validity.ts, provenWithinBudget): each unproven reconnect must see the
  // cursor's successor by its budget, with no drop in between.
  const lag = cfg.Q > 0 ? cfg.R : 0;
  let until = -1;
  const awaiting = new Map<number, number>();
  /** Open delayed obligations: how long until their proof, and until their budget ends. */
  const delayedOpen: number[] = [];
  for (let i = 0; i < truth.reconnects.length && !broken; i++) {
    const r = truth.reconnects[i]!;
    if (!(r.status === 200 && r.sessionAlive && r.retained && r.cursor !== null)) continue;
    const delayed = r.declaredFloor !== null;
    const fatal = delayed ? [] : truth.drops;
    let proofAt = r.t;
    if (!r.primed) {
      const next = truth.emittedAt[r.cursor + 1];
      if (next === undefined) {
        // Still to come: at now or later, so it must come within `slack` of now; for a delayed
        // reconnect a drop since defers it to the next reconnect of its episode.
        const at = delayed ? delayedProofAt(truth, cfg, r.t, now) : now;
        const slack = r.episodeStart + cfg.P - lag - at;
        if (slack <= 0 || fatal.some((d) => d >= r.t)) broken = true;
        else {
          awaiting.set(r.cursor + 1, Math.min(awaiting.get(r.cursor + 1) ?? slack, slack));
          // A future drop defers it too: how much budget is left matters.
          if (delayed) delayedOpen.push(-1, r.episodeStart + cfg.P - now);
        }
        continue;
      }
      proofAt = Math.max(next, r.t) + lag;
    }
    if (delayed) proofAt = delayedProofAt(truth, cfg, r.t, proofAt);
    if ((!r.primed || delayed) && proofAt >= r.episodeStart + cfg.P) {
      broken = true;
      continue;
    }
    if (fatal.some((d) => d >= r.t && d <= proofAt)) broken = true;
    else if (proofAt >= now) {
      until = Math.max(until, proofAt - now);
      if (delayed) delayedOpen.push(proofAt - now, r.episodeStart + cfg.P - now);
    }
  }
  if (broken) {
    out.push(1);
    return;
  }
  out.push(
    0,
    truth.idle.some((x) => x.connectionUp) ? 1 : 0,
    truth.sessionLostAt === null ? 0 : 1,
    // A drop at this very instant counts against a reconnect made at this instant too.
    truth.drops.length > 0 && truth.drops[truth.drops.length - 1] === now ? 1 : 0,
    until,
    awaiting.size,
  );
  for (const id of [...awaiting.keys()].sort((a, b) => a - b)) out.push(id, awaiting.get(id)!);
  out.push(delayedOpen.length, ...delayedOpen);
  // Frames waiting in the writer: how long, as far as the keepalive condition can tell.
  for (const q of w.server.out) out.push(age(q.queuedAt, now, stallCap));
}

function pushQueue(out: number[], q: readonly QueuedFrame[]): void {
  out.push(q.length);
  for (const x of q) pushFrame(out, x.frame);
}

/** Encodes `w` into `out` (cleared first). `extra` are the search's own counters. */
export function encodeWorld(
  w: World,
  ctx: EncodeContext,
  extra: readonly number[],
  out: number[],
): void {
  out.length = 0;
  const { cfg } = w;
  const now = w.clock.now;
  const s = w.server;
  const c = w.client;
  out.push(ctx.root, ...extra, w.truth.restarts.length, w.truth.reconnects.length);
  // The server.
  out.push(
    epochNo(s.epoch),
    (s.sessionKnown ? 1 : 0) |
      (s.recreated ? 2 : 0) |
      (s.restarted ? 4 : 0) |
      (s.toolAlive ? 8 : 0) |
      (s.connected ? 16 : 0) |
      (s.live ? 32 : 0) |
      (s.keepaliveBlocked ? 64 : 0),
    s.head,
    s.toolEvents,
    cfg.I > 0 ? age(s.lastEmitAt, now, cfg.I) : 0,
    s.connected ? rel(s.nextKeepaliveAt, now) : -1,
    s.connected ? rel(s.closeAt, now) : -1,
    s.log.length,
  );
  const sameTick = w.policy === 'reorder-same-tick';
  for (let i = 0; i < s.log.length; i++) {
    const f = s.log[i]!;
    out.push(f.id, eventBits(f));
    if (sameTick)
      out.push(
        (i > 0 && s.log[i - 1]!.emittedAt === f.emittedAt ? 1 : 0) |
          (i === s.log.length - 1 && f.emittedAt === now ? 2 : 0),
      );
  }
  out.push(s.otherLog.length, s.otherLog[0]?.id ?? 0);
  pushQueue(out, s.out);
  // The network.
  out.push(w.net.up ? 1 : 0, w.net.socket.length);
  for (const f of w.net.socket) pushFrame(out, f);
  // The client.
  let snapId = ctx.snapIds.get(c.snap);
  if (snapId === undefined) {
    snapId = hashString(snapshotKey(c.snap));
    ctx.snapIds.set(c.snap, snapId);
  }
  const live = c.connected && c.done === null;
  const idleRef = c.behaviour.idleOn === 'bytes' ? c.lastByteAt : c.lastAppAt;
  out.push(
    snapId[0],
    snapId[1],
    c.cursor,
    (c.hasCursor ? 1 : 0) |
      (c.connected ? 2 : 0) |
      (c.appSaturated ? 4 : 0) |
      (c.appBacklog > 0 ? 8 : 0) |
      (c.forgetCursor ? 16 : 0) |
      (c.eventsSinceReconnect > 0 ? 32 : 0),
    c.done === null ? 0 : c.done === 'complete' ? 1 : 2,
    c.episodeStart === null ? -1 : age(c.episodeStart, now, cfg.P),
    live ? age(idleRef, now, cfg.T) : -1,
    c.done === null ? rel(c.reconnectAt, now) : -1,
    rel(c.proofAt, now),
  );
  // The task-stream client's translator: the cursor it reads duplicates against, its answer
  // awaited, the tasks delivered (the SSE world has none).
  if (c.wire !== null) {
    const key = hashString(c.wire.key());
    out.push(key[0], key[1]);
  }
  // What the claims read.
  pushDelivered(w, out);
  out.push(
    w.truth.reconnects.some(
      (r) => r.declaredFloor !== null && r.cursor !== null && r.declaredFloor < r.floor,
    )
      ? 1
      : 0,
  );
  if (ctx.validConfig) pushValidity(w, out);
}
