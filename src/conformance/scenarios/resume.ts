/**
 * One call, cut and resumed: within the retained window, after eviction, after a restart, after
 * a same-millisecond burst, and an empty resume followed by another; each with the truth it is
 * judged on (what the call owed from the cursor) and the verdict it expects.
 */
import { describe, groundTruth, owed } from './truth.js';
import { HarnessError, lacking } from '../types.js';
import type { RecordingClient } from '../recording/recorder.js';
import type { Scenario, ScenarioContext } from './scenario.js';
import {
  GAP,
  has,
  cutAfterThree,
  resume,
  keepReading,
  judge,
  needsEviction,
  singleCallResume,
  unknownSessionFinding,
} from './steps.js';

/** Resume within the retained window: the tool goes on while the client is away. */
export const resumeWithinWindow: Scenario = {
  name: 'within-window',
  title: 'cut after message 3, server emits 4-5 meanwhile, resume from 3',
  run: (ctx) => singleCallResume(ctx, { n: 8, cutAfter: 3, awayUpTo: 5, gapMs: GAP }),
};

/** Resume after the cursor was evicted from the store's retention. */
export const resumeAfterEviction: Scenario = {
  name: 'after-eviction',
  title: 'cut after 3, server emits retention+8 more, resume from 3',
  requires: needsEviction,
  run: (ctx) =>
    singleCallResume(ctx, {
      n: ctx.retention + 8,
      cutAfter: 3,
      awayUpTo: ctx.retention + 8,
      gapMs: GAP,
      meanwhile: () => ctx.adapter.evict(),
    }),
};

/**
 * After a restart: checks that it happened, and what the session from before it gets. A server
 * the harness reaches only over HTTP (`--url`) holds the tool's state itself: when call `tag`
 * still reports what it emitted before (`count_status`), nothing restarted (an old process still
 * serving the port), and the cell is an `error` saying so rather than a verdict on a restart
 * that never was. Then a `ping` on the old session: 404 is right; anything else is the finding
 * returned (a 400 makes a client fail the call where a 404 makes it re-initialize).
 */
export async function checkRestart(
  ctx: ScenarioContext,
  tag: string,
  client: RecordingClient,
  cutAfter: number,
): Promise<string | undefined> {
  if (ctx.adapter.toolControl === 'remote') {
    const k = await ctx.control.status(tag);
    if (k >= cutAfter) {
      throw new HarnessError(
        `the restart did not happen: after it, call ${tag} still reports ${k} message(s) ` +
          `emitted (count_status), state a restarted server cannot have; is an old process ` +
          `still serving the port? (--restart-cmd must stop it and start the server anew)`,
      );
    }
  }
  if (client.sessionId === undefined) return undefined;
  return unknownSessionFinding(
    ctx,
    client,
    client.sessionId,
    'the session from before the restart',
  );
}

/** Resume after a server restart that lost every in-memory state. */
export const resumeAfterRestart: Scenario = {
  name: 'after-restart',
  title: 'cut after 3, restart the server (state lost), resume from 3',
  requires: (a) => lacking(a, 'restart'),
  judgedWithoutCursor: true,
  async run(ctx) {
    let finding: string | undefined;
    const run = await singleCallResume(ctx, {
      n: 6,
      cutAfter: 3,
      awayUpTo: 3,
      gapMs: GAP,
      meanwhile: async () => {
        await ctx.adapter.restart();
        finding = await checkRestart(ctx, ctx.tag('A'), ctx.clients.at(-1)!, 3);
      },
    });
    if (finding === undefined) return run;
    return { ...run, finding, observed: `${run.observed}; finding: ${finding}` };
  },
};

/** A burst in the same millisecond, then resume from its first message. */
export const burstThenResume: Scenario = {
  name: 'same-ms-burst',
  title: '12 messages emitted back to back, cut after the first, resume from it',
  run: (ctx) => singleCallResume(ctx, { n: 12, cutAfter: 1, awayUpTo: 12, holdAtCut: false }),
};

/**
 * A resumed stream that ends before any new event, then a second reconnect with the same
 * cursor: the server must still replay from it.
 */
export const emptyResumeThenReconnect: Scenario = {
  name: 'empty-resume-twice',
  title: 'resume with nothing new, server ends that stream, reconnect again with the same cursor',
  async run(ctx) {
    const { A, n, client, f, cursor } = await cutAfterThree(ctx);
    const first = await resume(ctx, client, f, cursor, has(A, 4));
    // Nothing new yet: the server cuts the (empty) resumed stream.
    ctx.adapter.dropConnections();
    await keepReading(ctx, f, first, () => false);
    await ctx.control.release(A, 4);
    await ctx.control.waitEmitted(A, n, ctx.timeoutMs);
    const second = await resume(ctx, client, f, cursor, has(A, n));
    await ctx.control.release(A, n + 1);
    await keepReading(ctx, f, second, has(A, 'result'));
    const firstTruth = groundTruth([], first.rec.delivered, new Set([A]));
    const run = judge(second.rec, owed(A, 3, n), [A], [first.rec, second.rec]);
    if (first.rec.status !== 200 && run.verdict === 'honored') run.verdict = 'rejected';
    if (firstTruth.foreign.length > 0) run.verdict = 'leak';
    run.observed = `1st: ${describe(first.rec, firstTruth)}; 2nd: ${run.observed}`;
    return run;
  },
};
