/**
 * Streams and sessions kept apart: a cursor of another stream or of another session, and two
 * sessions in flight at once; each judged on the truth of every stream involved (what each
 * owed, and what arrived from elsewhere).
 */
import { randomUUID } from 'node:crypto';
import { TraceRecorder } from '../recording/recorder.js';
import { CallFollower } from '../recording/call-follower.js';
import { describe, groundTruth, owed, verdictOf } from './truth.js';
import {
  NOT_RESUMABLE,
  type Delivered,
  type GroundTruth,
  type ReconnectObservationRecord,
} from '../types.js';
import type { Scenario } from './scenario.js';
import {
  has,
  newClient,
  openHeldCall,
  disconnect,
  cutAfterThree,
  resume,
  keepReading,
  judge,
  unknownSessionFinding,
} from './steps.js';

/**
 * Resume with the cursor of another stream of the same session: judged against the cursor's
 * own stream (the only one the server is told about); the other call's messages are foreign.
 */
export const cursorOfAnotherStream: Scenario = {
  name: 'other-stream',
  title: "two calls A, B; cut both after 3; resume with B's cursor: only B may follow",
  async run(ctx) {
    const A = ctx.tag('A');
    const B = ctx.tag('B');
    const client = await newClient(ctx);
    const fa = new CallFollower(ctx.trace);
    const n = 6;
    const sa = await openHeldCall(ctx, client, fa, A, n);
    // B is followed on its own connection: its events are not part of A's trace (one trace
    // tells one stream's story; the machine does not model two concurrent streams).
    const fb = new CallFollower(new TraceRecorder(ctx.trace.codec));
    const sb = await openHeldCall(ctx, client, fb, B, n);
    const cursorB = fb.cursor;
    sb.abort();
    await disconnect(fa, sa);
    await ctx.control.release(A, 4);
    await ctx.control.release(B, 4);
    await ctx.control.waitEmitted(A, n, ctx.timeoutMs);
    await ctx.control.waitEmitted(B, n, ctx.timeoutMs);
    const r = await resume(ctx, client, fa, cursorB, has(B, n));
    await ctx.control.release(A, n + 1);
    await ctx.control.release(B, n + 1);
    await keepReading(ctx, fa, r, has(B, 'result'));
    return judge(r.rec, owed(B, 3, n), [B]);
  },
};

/**
 * Resume, in another session, with a cursor of the first session. Nothing of the first session
 * may reach the second: a replay is a cross-session leak (a security finding).
 */
export const cursorOfAnotherSession: Scenario = {
  name: 'other-session',
  title: 'session 2 sends a cursor of session 1: must be refused, never replayed',
  async run(ctx) {
    const { A, n, cursor } = await cutAfterThree(ctx);
    if (cursor === null) {
      // Without ids there is no cursor to carry into another session: nothing to judge.
      const truth = groundTruth([], [], new Set());
      return {
        reconnects: [],
        truth,
        verdict: 'n/a',
        observed: 'not run',
        reason: `${NOT_RESUMABLE}, so there is no cursor to send from another session`,
      };
    }
    await ctx.control.release(A, 4);
    await ctx.control.waitEmitted(A, n, ctx.timeoutMs);
    const two = await newClient(ctx);
    const f2 = new CallFollower(ctx.trace);
    const r = await resume(ctx, two, f2, cursor, has(A, n));
    await ctx.control.release(A, n + 1);
    await keepReading(ctx, f2, r, has(A, 'result'));
    // Session 2 is owed nothing: the only right answer is a refusal.
    const truth = groundTruth([], r.rec.delivered, new Set());
    let verdict = verdictOf(r.rec, truth);
    let observed = describe(r.rec, truth);
    if (verdict === 'honored') {
      verdict = 'silent loss';
      observed += ': accepted a cursor it cannot replay';
    }
    // A session the server never issued must be 404, as a lost one is (issue 38).
    const finding =
      two.sessionId === undefined
        ? undefined
        : await unknownSessionFinding(ctx, two, randomUUID(), 'a session the server never issued');
    return {
      reconnects: [r.rec],
      truth,
      verdict,
      observed: finding === undefined ? observed : `${observed}; finding: ${finding}`,
      security: verdict === 'leak',
      ...(finding !== undefined ? { finding } : {}),
    };
  },
};

/** One ground truth for several streams: what each owed, lost, got twice or foreign. */
function mergeTruths(truths: GroundTruth[]): GroundTruth {
  return {
    expected: truths.flatMap((t) => t.expected),
    lost: truths.flatMap((t) => t.lost),
    duplicated: truths.flatMap((t) => t.duplicated),
    reordered: truths.some((t) => t.reordered),
    foreign: truths.flatMap((t) => t.foreign),
    resultArrived: truths.every((t) => t.resultArrived),
  };
}

/**
 * Two sessions with a call in flight at once. Both clients number their requests alike (the
 * two calls share a JSON-RPC id), both calls are held after message 3, then released together:
 * each stream must carry its own call's messages and result and nothing of the other's. A
 * server that routes responses or notifications by id, or to some first stream, across
 * sessions hands one session the other's data: `leak` (a security finding). No reconnect.
 */
export const twoSessionsInFlight: Scenario = {
  name: 'two-sessions',
  title: 'two sessions, a call each in flight at once (same request ids): each stream only its own',
  async run(ctx) {
    const A = ctx.tag('A');
    const B = ctx.tag('B');
    const n = 6;
    const one = await newClient(ctx);
    const two = await newClient(ctx);
    const fa = new CallFollower(ctx.trace);
    // Session 2's stream has a trace of its own: one trace tells one stream's story.
    const fb = new CallFollower(new TraceRecorder(ctx.trace.codec));
    const sa = await openHeldCall(ctx, one, fa, A, n);
    const sb = await openHeldCall(ctx, two, fb, B, n);
    // B runs to its result while A is still open and held: whatever of B's the server routes
    // elsewhere can only land on A's stream (or nowhere), then A runs to its own result.
    const got: [Delivered[], Delivered[]] = [[], []];
    await ctx.control.releaseTag(B);
    const endB = await fb.read(sb, has(B, 'result'), ctx.idleMs, true, got[1]);
    await ctx.control.releaseTag(A);
    const endA = await fa.read(sa, has(A, 'result'), ctx.idleMs, true, got[0]);
    const ends = [endA, endB];
    const truths = [
      groundTruth(owed(A, 3, n), got[0], new Set([A])),
      groundTruth(owed(B, 3, n), got[1], new Set([B])),
    ];
    const recs: ReconnectObservationRecord[] = got.map((delivered, i) => ({
      cursor: null,
      status: 200,
      ending: ends[i] === 'matched' ? 'complete' : ends[i]!,
      delivered,
    }));
    const truth = mergeTruths(truths);
    const verdict = verdictOf(recs[0]!, truth);
    const observed =
      `no reconnect; session 1: ${describe(recs[0]!, truths[0]!)}; ` +
      `session 2: ${describe(recs[1]!, truths[1]!)}`;
    return { reconnects: [], truth, verdict, observed, security: verdict === 'leak' };
  },
};
