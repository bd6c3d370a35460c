/**
 * The client scenarios: the server scenarios' names where they apply to an SDK client driven
 * through a real tool call, each with what the call owes (the truth it is judged on) and why it
 * does not apply where it does not.
 */
import { type CountArgs } from '../tool.js';
import type { HoldControl } from '../tool.js';
import { lacking, type ImplementationAdapter } from '../types.js';
import type { FaultNetwork } from '../rows/fault-network.js';
import type { ReplayPause } from '../replay-window.js';

export interface ClientContext {
  adapter: ImplementationAdapter;
  control: HoldControl;
  net: FaultNetwork;
  /** The slowed store's first replay, held after its read (scenarios with `pauseReplay`). */
  replay: ReplayPause;
  retention: number;
  timeoutMs: number;
  /** Resolves when the application has received progress message `i`. */
  progressed(i: number): Promise<void>;
  /** Starts the call. */
  call(args: CountArgs): void;
}

/** A client scenario: same names as the server scenarios where it applies. */
export interface ClientScenario {
  name: string;
  notApplicable?: string;
  /** Delay (ms) the server's event store adds to each operation (`StartOptions.storeDelayMs`). */
  storeDelayMs?: number;
  /** The slowed store holds its first replay after the read until `ctx.replay.release()`. */
  pauseReplay?: boolean;
  /** The call's timeout where the call is long by design (default {@link CLIENT_CALL_TIMEOUT_MS}). */
  callTimeoutMs?: number;
  /** Why it cannot run against the row's server (`null`: it can). */
  requires?(adapter: ImplementationAdapter): string | null;
  run?(ctx: ClientContext): Promise<{ n: number; after: number }>;
}

export const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The guard's proof budget in the rows (`proofTimeoutMs`). It runs out by design only where a
 * resume is answered 200 and nothing proves it (the ring's `after-eviction` and
 * `empty-resume-twice`); elsewhere the first event must come within it, which on a loaded
 * machine took over 500 ms (load 11-16 on two cores): hence four times that.
 */
export const CLIENT_PROOF_BUDGET_MS = 2000;

/**
 * The call's timeout (`callTool`'s `timeout`): what ends a call that would otherwise hang. It
 * counts from the call's start and the budget from the first reconnect, so it leaves the budget
 * the time a loaded machine takes to reach that reconnect (about as long again): an unproven
 * resume is raised (guarded) or reported (bare) before the call ends.
 */
export const CLIENT_CALL_TIMEOUT_MS = 2 * CLIENT_PROOF_BUDGET_MS;

/**
 * `slow-store-replay` for the client rows: the server's event store is `storeDelayMs` away.
 * The server cuts the call's stream after message 3 and the client resumes from 3; message 4
 * is stored between the store's read of the replay and the registration of the resumed stream,
 * so the replay does not carry it and the resumed stream does not get it. A guarded client
 * must raise the gap as a StreamResumptionError; a bare one shows what the application gets.
 * The server runs without its `ReplayFence` here: the rows test the client against the window.
 *
 * `placement` says how message 4 gets into the window:
 * - `'paused'` (the matrix cell): the store holds the replay after its read
 *   (`StartOptions.onReplayRead`) while the tool emits message 4 (stored, on no registered
 *   stream); message 5 waits until the resumed GET is answered, i.e. the stream registered.
 *   No timer aims at the window: the cell is the same on a loaded machine. Needs a delay > 0
 *   (an unslowed store has no window to hold).
 * - `'timed'`: the tool is released `storeDelayMs / 2` after the resume GET left (the server
 *   scenario `slowStoreReplayScenario`'s `'timed'` placement), so message 4 lands in the window
 *   only when the timers keep to it; slow-store.test.ts measures how often it does at several
 *   delays.
 */
export function clientSlowStoreReplay(
  storeDelayMs: number,
  placement: 'paused' | 'timed' = 'paused',
): ClientScenario {
  if (placement === 'paused' && !(storeDelayMs > 0)) {
    throw new Error('a paused slow-store-replay needs storeDelayMs > 0 (no delay: no window)');
  }
  return {
    name: 'slow-store-replay',
    storeDelayMs,
    ...(placement === 'paused' ? { pauseReplay: true } : {}),
    requires: (a) => lacking(a, 'storeDelay'),
    async run(ctx) {
      if (placement === 'timed') {
        ctx.call({ tag: 'A', n: 6, holds: [4, 7], gapMs: 2 });
        await ctx.progressed(3);
        const sent = ctx.net.resumeSent(ctx.timeoutMs);
        ctx.adapter.dropConnections();
        await sent;
        await settle(storeDelayMs / 2);
        await ctx.control.releaseAll();
        return { n: 6, after: 0 };
      }
      ctx.call({ tag: 'A', n: 6, holds: [4, 5, 7], gapMs: 2 });
      await ctx.progressed(3);
      ctx.adapter.dropConnections();
      // The store has read the replay after 3 (empty) and holds it: message 4 lands now.
      await ctx.replay.read(ctx.timeoutMs);
      await ctx.control.release('A', 4);
      await ctx.control.waitEmitted('A', 4, ctx.timeoutMs);
      const registered = ctx.net.resumeAnswered(ctx.timeoutMs);
      ctx.replay.release();
      await registered;
      await ctx.control.releaseAll();
      return { n: 6, after: 0 };
    },
  };
}

/** The client scenarios, in matrix order. */
export const CLIENT_SCENARIOS: readonly ClientScenario[] = [
  {
    name: 'within-window',
    async run(ctx) {
      ctx.call({ tag: 'A', n: 8, holds: [4], gapMs: 2 });
      await ctx.progressed(3);
      ctx.adapter.dropConnections();
      await ctx.control.releaseAll();
      return { n: 8, after: 0 };
    },
  },
  {
    name: 'after-eviction',
    async run(ctx) {
      const n = ctx.retention + 8;
      ctx.call({ tag: 'A', n, holds: [4, n + 1], gapMs: 2 });
      await ctx.progressed(3);
      ctx.net.close();
      ctx.adapter.dropConnections();
      await ctx.control.release('A', 4);
      await ctx.control.waitEmitted('A', n, ctx.timeoutMs);
      ctx.net.open();
      await ctx.control.releaseAll();
      return { n, after: 0 };
    },
  },
  {
    name: 'after-restart',
    async run(ctx) {
      ctx.call({ tag: 'A', n: 6, holds: [4], gapMs: 2 });
      await ctx.progressed(3);
      ctx.net.close();
      await ctx.adapter.restart();
      ctx.net.open();
      await ctx.control.releaseAll();
      return { n: 6, after: 0 };
    },
  },
  { name: 'other-stream', notApplicable: 'the SDK client only sends cursors of the stream' },
  { name: 'other-session', notApplicable: 'the SDK client only sends cursors of the stream' },
  {
    name: 'same-ms-burst',
    notApplicable: 'the SDK reads a whole burst before a fault can fall between its events',
  },
  {
    name: 'empty-resume-twice',
    async run(ctx) {
      ctx.call({ tag: 'A', n: 6, holds: [4], gapMs: 2 });
      await ctx.progressed(3);
      const before = ctx.net.gets.length;
      // The cut must fall on the resumed stream itself, answered: on a loaded machine the two
      // GETs counted below were at times the standalone one twice, the cut then fell on the
      // resume's request, and the SDK retried it with its cursor (a healthy resume, not this
      // cell). So the resume's own answer is awaited (an error if none comes), then the count.
      const resumed = ctx.net.resumeAnswered(ctx.timeoutMs);
      ctx.adapter.dropConnections();
      await resumed;
      // The resumed stream (and the standalone one) answered: nothing new is there yet.
      await ctx.net.answered(before + 2, ctx.timeoutMs);
      await settle(100);
      ctx.adapter.dropConnections();
      await ctx.net.answered(before + 4, ctx.timeoutMs);
      await ctx.control.releaseAll();
      return { n: 6, after: 0 };
    },
  },
  {
    name: 'reader-stall',
    // A long call by design (24 messages of 16 KB, a 600 ms pause, a 500 ms busy loop): over two
    // seconds on a loaded machine. The cell is honored or not; the timeout only ends a hang.
    callTimeoutMs: 5 * CLIENT_CALL_TIMEOUT_MS,
    async run(ctx) {
      // Soon after message 1 the application blocks its event loop for five keepalive
      // intervals (the seed's saturated client) while the stream waits for the network: the
      // guard's idle timer must not mistake it for silence.
      ctx.call({ tag: 'A', n: 24, pad: 16 * 1024, pauseMs: 600 });
      return { n: 24, after: 0 };
    },
  },
  { name: 'stale-connection', notApplicable: 'the SDK client closes a stream before resuming it' },
  clientSlowStoreReplay(25),
];
