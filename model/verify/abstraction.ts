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
import { fingerprintString, fp, hashString } from './fingerprint.js';
import type { Spent } from './moves.js';
import { isValidConfig } from './scope.js';
import { delayedProofAt } from '../world/validity.js';
import { callCode } from '../claims/no-wait-after-failure.js';

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

/**
 * An encoded state: the small integers in a reused buffer, so that encoding a state allocates
 * nothing. Each value is kept as a 32-bit integer (as the fingerprint reads it).
 */
export class Encoding {
  buf = new Int32Array(1024);
  /**
   * Values written. Past the buffer's end a write is lost but still counted (a typed array
   * ignores it): `encodeWorld` then grows the buffer and encodes again, so `put` need not check.
   */
  n = 0;

  /** Appends `x`. */
  put(x: number): void {
    this.buf[this.n++] = x;
  }

  /** The values did not all fit: a buffer that holds twice as many. */
  grow(): void {
    this.buf = new Int32Array(this.n * 2);
  }

  /** The values written, as a list. */
  values(): number[] {
    return Array.from(this.buf.subarray(0, this.n));
  }
}

const epochNos = new Map<string, number>();
// Nearly every frame is of the same epoch as the one before: that one is kept at hand.
let lastEpoch = '';
let lastEpochNo = 0;
function epochNo(e: string): number {
  if (e === lastEpoch) return lastEpochNo;
  let n = epochNos.get(e);
  if (n === undefined) {
    n = Number(e.slice(1)) || 0;
    epochNos.set(e, n);
  }
  lastEpoch = e;
  lastEpochNo = n;
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

function putFrame(out: Encoding, f: Frame): void {
  if (f.k === 'event') {
    out.put(f.id);
    out.put(eventBits(f));
  } else out.put(f.k === 'keepalive' ? -1 : -2);
}

const rel = (t: number | null, now: number): number =>
  t === null || !Number.isFinite(t) ? -1 : Math.max(0, t - now);
const age = (t: number, now: number, cap: number): number =>
  Number.isFinite(t) ? Math.min(now - t, cap) : cap;

/** Where the delivered list stands: the prefix 1..cursor (with its priming count), or all of it. */
function putDelivered(w: World, out: Encoding): void {
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
    out.put(0);
    out.put(priming);
    return;
  }
  out.put(1);
  out.put(delivered.length);
  for (const e of delivered) {
    out.put(e.id);
    out.put(eventBits(e));
    out.put(truth.emittedAt[e.id] === e.emittedAt ? 1 : 0);
  }
}

/** A drop in `drops` at or after `from` and at or before `to`. */
function dropWithin(drops: readonly number[], from: number, to: number): boolean {
  for (const d of drops) if (d >= from && d <= to) return true;
  return false;
}

/**
 * The world-level conditions of validity as far as the future can still change them; `[1]`
 * once one of them is broken for good (then nothing the claims read from the truth matters
 * but the declared-floor lie, which is kept apart).
 */
function putValidity(w: World, out: Encoding): void {
  const { cfg, truth } = w;
  const now = w.clock.now;
  const stallCap = Math.max(0, cfg.T - cfg.K);
  let broken =
    truth.cursorlessReconnects > 0 ||
    !(cfg.T > cfg.K + truth.longestWriteStall) ||
    truth.reconnects.some((r) => r.sessionAlive && !r.retained) ||
    truth.restarts.some((r) => r.era !== undefined);
  // Proof obligations (validity.ts, provenWithinBudget): each unproven reconnect must see the
  // cursor's successor by its budget, with no drop in between.
  const lag = cfg.Q > 0 ? cfg.R : 0;
  let until = -1;
  // Ids awaited, each with its least slack (the few there are, kept in two short lists).
  let awaitIds: number[] | null = null;
  let awaitSlack: number[] | null = null;
  /** Open delayed obligations: how long until their proof, and until their budget ends. */
  let delayedOpen: number[] | null = null;
  for (let i = 0; i < truth.reconnects.length && !broken; i++) {
    const r = truth.reconnects[i]!;
    if (!(r.status === 200 && r.sessionAlive && r.retained && r.cursor !== null)) continue;
    // Caught up: no obligation (validity.ts).
    if (r.declaredHead !== null && r.declaredHead === r.cursor) continue;
    const delayed = r.declaredFloor !== null;
    let proofAt = r.t;
    if (!r.primed) {
      const next = truth.emittedAt[r.cursor + 1];
      if (next === undefined) {
        // Still to come: at now or later, so it must come within `slack` of now; for a delayed
        // reconnect a drop since defers it to the next reconnect of its episode.
        const at = delayed ? delayedProofAt(truth, cfg, r.t, now) : now;
        const slack = r.episodeStart + cfg.P - lag - at;
        if (slack <= 0 || (!delayed && dropWithin(truth.drops, r.t, Infinity))) broken = true;
        else {
          awaitIds ??= [];
          awaitSlack ??= [];
          const k = awaitIds.indexOf(r.cursor + 1);
          if (k < 0) {
            awaitIds.push(r.cursor + 1);
            awaitSlack.push(slack);
          } else awaitSlack[k] = Math.min(awaitSlack[k]!, slack);
          // A future drop defers it too: how much budget is left matters.
          if (delayed) (delayedOpen ??= []).push(-1, r.episodeStart + cfg.P - now);
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
    if (!delayed && dropWithin(truth.drops, r.t, proofAt)) broken = true;
    else if (proofAt >= now) {
      until = Math.max(until, proofAt - now);
      if (delayed) (delayedOpen ??= []).push(proofAt - now, r.episodeStart + cfg.P - now);
    }
  }
  if (broken) {
    out.put(1);
    return;
  }
  out.put(0);
  out.put(truth.idle.some((x) => x.connectionUp) ? 1 : 0);
  out.put(truth.sessionLostAt === null ? 0 : 1);
  // A drop at this very instant counts against a reconnect made at this instant too.
  out.put(truth.drops.length > 0 && truth.drops[truth.drops.length - 1] === now ? 1 : 0);
  out.put(until);
  if (awaitIds === null || awaitSlack === null) out.put(0);
  else {
    out.put(awaitIds.length);
    // By id, ascending (a selection: there are one or two).
    const done = awaitIds.map(() => false);
    for (let j = 0; j < awaitIds.length; j++) {
      let best = -1;
      for (let k = 0; k < awaitIds.length; k++)
        if (!done[k] && (best < 0 || awaitIds[k]! < awaitIds[best]!)) best = k;
      done[best] = true;
      out.put(awaitIds[best]!);
      out.put(awaitSlack[best]!);
    }
  }
  if (delayedOpen === null) out.put(0);
  else {
    out.put(delayedOpen.length);
    for (const x of delayedOpen) out.put(x);
  }
  // Frames waiting in the writer: how long, as far as the keepalive condition can tell.
  for (const q of w.server.out) out.put(age(q.queuedAt, now, stallCap));
}

function putQueue(out: Encoding, q: readonly QueuedFrame[]): void {
  out.put(q.length);
  for (const x of q) putFrame(out, x.frame);
}

/** A declared floor above what the server really held: a lie the claims judge. */
function floorLied(w: World): boolean {
  for (const r of w.truth.reconnects)
    if (r.declaredFloor !== null && r.cursor !== null && r.declaredFloor < r.floor) return true;
  return false;
}

/**
 * Encodes `w` into `out` (cleared first). `spent` is the search's own count of what the world
 * spent of its bounds that its state does not record.
 */
export function encodeWorld(w: World, ctx: EncodeContext, spent: Spent, out: Encoding): void {
  for (;;) {
    out.n = 0;
    encodeInto(w, ctx, spent, out);
    if (out.n <= out.buf.length) return;
    out.grow();
  }
}

function encodeInto(w: World, ctx: EncodeContext, spent: Spent, out: Encoding): void {
  const { cfg } = w;
  const now = w.clock.now;
  const s = w.server;
  const c = w.client;
  out.put(ctx.root);
  out.put(spent.disconnects);
  out.put(spent.otherEmits);
  out.put(w.truth.restarts.length);
  out.put(w.truth.reconnects.length);
  // The server.
  out.put(epochNo(s.epoch));
  out.put(
    (s.sessionKnown ? 1 : 0) |
      (s.recreated ? 2 : 0) |
      (s.restarted ? 4 : 0) |
      (s.toolAlive ? 8 : 0) |
      (s.connected ? 16 : 0) |
      (s.live ? 32 : 0) |
      (s.keepaliveBlocked ? 64 : 0) |
      (s.upgraded ? 128 : 0),
  );
  out.put(s.head);
  out.put(s.toolEvents);
  out.put(cfg.I > 0 ? age(s.lastEmitAt, now, cfg.I) : 0);
  out.put(s.connected ? rel(s.nextKeepaliveAt, now) : -1);
  out.put(s.connected ? rel(s.closeAt, now) : -1);
  out.put(s.log.length);
  const sameTick = w.policy === 'reorder-same-tick';
  for (let i = 0; i < s.log.length; i++) {
    const f = s.log[i]!;
    out.put(f.id);
    out.put(eventBits(f));
    if (sameTick)
      out.put(
        (i > 0 && s.log[i - 1]!.emittedAt === f.emittedAt ? 1 : 0) |
          (i === s.log.length - 1 && f.emittedAt === now ? 2 : 0),
      );
  }
  out.put(s.otherLog.length);
  out.put(s.otherLog[0]?.id ?? 0);
  putQueue(out, s.out);
  // The network.
  out.put(w.net.up ? 1 : 0);
  out.put(w.net.socket.length);
  for (const f of w.net.socket) putFrame(out, f);
  // The client.
  let snapId = ctx.snapIds.get(c.snap);
  if (snapId === undefined) {
    snapId = hashString(snapshotKey(c.snap));
    ctx.snapIds.set(c.snap, snapId);
  }
  const live = c.connected && c.done === null;
  const idleRef = c.behaviour.idleOn === 'bytes' ? c.lastByteAt : c.lastAppAt;
  out.put(snapId[0]);
  out.put(snapId[1]);
  out.put(c.cursor);
  out.put(
    (c.hasCursor ? 1 : 0) |
      (c.connected ? 2 : 0) |
      (c.appSaturated ? 4 : 0) |
      (c.appBacklog > 0 ? 8 : 0) |
      (c.forgetCursor ? 16 : 0) |
      (c.eventsSinceReconnect > 0 ? 32 : 0),
  );
  out.put(c.done === null ? 0 : c.done === 'complete' ? 1 : 2);
  out.put(c.episodeStart === null ? -1 : age(c.episodeStart, now, cfg.P));
  out.put(live ? age(idleRef, now, cfg.T) : -1);
  out.put(c.done === null ? rel(c.reconnectAt, now) : -1);
  out.put(rel(c.proofAt, now));
  // The application's call (NoWaitAfterFailure): pending or ended, as the claim judges it, and
  // the client's own request timer (armed only by a client that leaves the call pending).
  out.put(callCode(c));
  out.put(rel(c.requestTimeoutAt, now));
  // The task-stream client's translator: the cursor it reads duplicates against, its answer
  // awaited, the tasks delivered (the SSE world has none).
  if (c.wire !== null) {
    fingerprintString(c.wire.key());
    out.put(fp.hi);
    out.put(fp.lo);
  }
  // What the claims read.
  putDelivered(w, out);
  out.put(floorLied(w) ? 1 : 0);
  if (ctx.validConfig) putValidity(w, out);
}
