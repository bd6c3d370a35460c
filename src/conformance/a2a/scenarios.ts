/**
 * The A2A scenarios: a client streams a task from an `@a2a-js/sdk` server, loses its
 * connection, and resubscribes (`SubscribeToTask`). Each scenario drives the agent's events
 * relative to the resubscribe and the store, never by the clock: where a window is needed, the
 * slow store holds a write or a read across the resubscribe's snapshot read (./store.ts), and
 * the store's log shows the order that happened. The same drive runs against the SDK's
 * in-memory store, which has no window.
 */
import type { A2aSdkServer } from './sdk-server.js';
import type { StoreStep } from './store.js';
import { Call, eventOf, type Frame } from './wire.js';

/** What a scenario recorded, for the truth and the trace. */
export interface A2aRun {
  taskId: string;
  /** The original stream's frames up to the cut. */
  before: Frame[];
  /** The resubscribe's frames (its snapshot first, or an error). */
  after: Frame[];
  /** The task as `GetTask` returned it once the resubscribe ended. */
  server: unknown;
  /** The placement the scenario needed, as the store's log shows it (one line). */
  placement: string;
}

interface Ctx {
  server: A2aSdkServer;
  /** Bound on each wait of the scenario (ms). */
  timeoutMs: number;
}

/** One A2A scenario. */
export interface A2aScenario {
  name: string;
  /** What it does, in one line (the docs' table). */
  summary: string;
  run(ctx: Ctx): Promise<A2aRun>;
}

const received = (k: number) => (frames: Frame[]) => frames.some((f) => eventOf(f) === k);

/** Opens the task's stream, publishes e1…e`upTo`, waits until the client has e`upTo`, cuts. */
async function streamThenCut(ctx: Ctx, upTo: number) {
  const { agent } = ctx.server;
  const send = new Call(
    ctx.server.url,
    'send',
    'SendStreamingMessage',
    { message: { messageId: `kit-${Date.now()}`, role: 'ROLE_USER', parts: [{ text: 'go' }] } },
    ctx.timeoutMs * 4,
  );
  const { taskId } = await bounded(agent.whenStarted(), ctx.timeoutMs, 'the agent got no task');
  for (let k = 1; k <= upTo; k++) agent.emit(k);
  await send.until(received(upTo), ctx.timeoutMs, `the client receiving e${upTo}`);
  send.cut();
  await send.done;
  return { taskId, before: [...send.frames] };
}

async function bounded<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function subscribe(ctx: Ctx, taskId: string): Call {
  return new Call(
    ctx.server.url,
    'subscribe',
    'SubscribeToTask',
    { id: taskId },
    ctx.timeoutMs * 4,
  );
}

/** Waits for the resubscribe's first frame; then publishes e`from`…e9 and completes with e10. */
async function finishAfterSnapshot(ctx: Ctx, sub: Call, from: number) {
  await sub.until((f) => f.length > 0, ctx.timeoutMs, "the resubscribe's first frame");
  if (sub.frames[0]?.kind !== 'task') return;
  const { agent } = ctx.server;
  for (let k = from; k <= 9; k++) agent.emit(k);
  agent.complete(10);
  await sub.until(
    (f) => f.some((x) => x.kind !== 'task' && eventOf(x) === undefined),
    ctx.timeoutMs,
    'the end of the resubscribe',
  );
}

async function getTask(ctx: Ctx, taskId: string): Promise<unknown> {
  const get = new Call(ctx.server.url, 'get', 'GetTask', { id: taskId }, ctx.timeoutMs);
  await get.done;
  const f = get.frames[0];
  return f && f.kind === 'task' ? f.value : null;
}

/** The order of the store's steps that matter, as one line (`read` = the snapshot read). */
export function placementOf(log: readonly StoreStep[], k: number): string {
  const read = log.findIndex((s) => s.what === 'read');
  const landed = log.findIndex((s) => s.what === 'landed' && s.events?.includes(k));
  const timeout = log.some((s) => s.what === 'hold-timeout');
  if (timeout) return 'a placement hold ran out (the window was not reached)';
  if (read < 0) return 'no snapshot read';
  return landed >= 0 && landed < read
    ? `e${k} persisted before the snapshot read`
    : `e${k} persisted after the snapshot read`;
}

async function finish(ctx: Ctx, taskId: string, before: Frame[], sub: Call, k: number) {
  const after = [...sub.frames];
  sub.cut();
  // The server's truth once its store caught up (a GetTask at once can be older than the events
  // the client saw: live delivery precedes persistence).
  await ctx.server.store.waitLanded(10, ctx.timeoutMs);
  return {
    taskId,
    before,
    after,
    server: await getTask(ctx, taskId),
    placement: placementOf(ctx.server.store.log, k),
  };
}

/**
 * One resubscribe drive: cut after e`cutAfter`; publish `away` and wait until the last is
 * persisted; publish `seam` with the slow store's writes held across the snapshot read; or
 * publish `onRead` when the snapshot read begins, the slow store's read held until it landed;
 * resubscribe, then publish the rest up to e9 and complete with e10.
 */
interface Drive {
  cutAfter: number;
  away: number[];
  seam?: number;
  onRead?: number;
}

async function drive(ctx: Ctx, d: Drive): Promise<A2aRun> {
  const { taskId, before } = await streamThenCut(ctx, d.cutAfter);
  const { agent, store } = ctx.server;
  for (const k of d.away) agent.emit(k);
  const placed = d.seam ?? d.onRead ?? d.away.at(-1) ?? d.cutAfter;
  if (d.away.length > 0) await store.waitLanded(d.away.at(-1)!, ctx.timeoutMs);
  if (d.seam !== undefined) {
    store.holdWritesAcrossNextRead();
    agent.emit(d.seam);
  }
  const onRead = d.onRead;
  if (onRead !== undefined) {
    store.holdNextReadUntilLanded(onRead);
    store.onSubscribeRead = () => {
      store.onSubscribeRead = undefined;
      agent.emit(onRead);
    };
  }
  const sub = subscribe(ctx, taskId);
  await finishAfterSnapshot(ctx, sub, placed + 1);
  return finish(ctx, taskId, before, sub, placed);
}

/** Every A2A scenario, in the order the table lists them. */
export const A2A_SCENARIOS: readonly A2aScenario[] = [
  {
    name: 'away',
    summary:
      'cut after e3; e4, e5 are emitted and persisted while the client is away; resubscribe; e6…e10 follow',
    run: (ctx) => drive(ctx, { cutAfter: 3, away: [4, 5] }),
  },
  {
    name: 'seam-loss',
    summary:
      "cut after e3; e4, e5 persisted while away; e6 is published and the resubscribe lands before e6 is persisted (the slow store's write of e6 lands after the snapshot read)",
    run: (ctx) => drive(ctx, { cutAfter: 3, away: [4, 5], seam: 6 }),
  },
  {
    name: 'snapshot-equal',
    summary:
      "cut after e4; e5 is published and the resubscribe lands before e5 is persisted: the snapshot is the client's own view",
    run: (ctx) => drive(ctx, { cutAfter: 4, away: [], seam: 5 }),
  },
  {
    name: 'seam-duplicate',
    summary:
      "cut after e3; the resubscribe's tap is attached, then e4 is published (when the snapshot read begins); the slow store's read returns after e4 was persisted",
    run: (ctx) => drive(ctx, { cutAfter: 3, away: [], onRead: 4 }),
  },
  {
    name: 'finished-while-away',
    summary: 'cut after e3; e4…e10 (COMPLETED) are emitted and persisted while away; resubscribe',
    async run(ctx) {
      const { taskId, before } = await streamThenCut(ctx, 3);
      const { agent, store } = ctx.server;
      for (let k = 4; k <= 9; k++) agent.emit(k);
      agent.complete(10);
      await store.waitLanded(10, ctx.timeoutMs);
      const sub = subscribe(ctx, taskId);
      await sub.done;
      return finish(ctx, taskId, before, sub, 10);
    },
  },
  {
    name: 'unknown-task',
    summary:
      'SubscribeToTask for a task id the server never issued (as after a restart that lost it)',
    async run(ctx) {
      const taskId = `kit-unknown-${Date.now()}`;
      const sub = subscribe(ctx, taskId);
      await sub.done;
      return { taskId, before: [], after: [...sub.frames], server: null, placement: '' };
    },
  },
];
