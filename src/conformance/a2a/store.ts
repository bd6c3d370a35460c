/**
 * The task stores of the A2A rows: the SDK's own `InMemoryTaskStore`, and the same store behind
 * write and read latency (a database's round trip). Both log what they see, in order, so a cell
 * can show where its resubscribe fell between an event's publish and its persistence, and both
 * let a scenario act when a resubscribe's snapshot read begins.
 *
 * The slow store places its windows by events, never by the clock alone: a write in flight
 * when a resubscribe's snapshot read begins lands after that read (armed by
 * {@link KitTaskStore.holdWritesAcrossNextRead}: a write latency longer than the resubscribe's
 * round trip, as the survey's 200 ms was), and a snapshot read armed by
 * {@link KitTaskStore.holdNextReadUntilLanded} reads only after a given event was persisted (a
 * read slower than a write). The in-memory store arms nothing: it writes and reads at once, so
 * the same drive finds no window there. Every hold is bounded ({@link HOLD_BOUND_MS}); a hold
 * that runs out is logged, and the cell says so instead of a verdict.
 */
import type { Task } from '@a2a-js/sdk';
import type { ServerCallContext, TaskStore } from '@a2a-js/sdk/server';
import { InMemoryTaskStore, STATE_HEADERS_KEY } from '@a2a-js/sdk/server';

/** The header the kit sets on each request, naming its call (`send`, `subscribe`, `get`). */
export const CALL_HEADER = 'x-a2a-kit-call';

/** A placement hold never waits longer than this (ms); then the store goes on and logs it. */
export const HOLD_BOUND_MS = 5000;

/** One thing the store saw, in order. */
export interface StoreStep {
  what: 'read-begin' | 'read' | 'write-begin' | 'landed' | 'hold-timeout';
  /** The kit's call that made it (`send` for the original stream's persistence). */
  call: string;
  /** For `landed`: the events the saved task holds (numbers k of e_k). */
  events?: number[];
}

/** The task of a save, read for the kit's events: artifact chunks `e<k>;`, status texts `e<k>`. */
export function eventsIn(task: unknown): number[] {
  const found = new Set<number>();
  const text = JSON.stringify(task);
  for (const m of text.matchAll(/"value":"((?:e\d+;)+|e\d+)"/g)) {
    for (const k of m[1]!.matchAll(/e(\d+)/g)) found.add(Number(k[1]));
  }
  return [...found].sort((a, b) => a - b);
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function callOf(context: ServerCallContext | undefined): string {
  const headers = context?.state?.get(STATE_HEADERS_KEY) as Record<string, unknown> | undefined;
  const v = headers?.[CALL_HEADER];
  return typeof v === 'string' ? v : 'send';
}

/** A bounded wait for `p`; `false` when the bound ran out first. */
async function bounded(p: Promise<void>, ms = HOLD_BOUND_MS): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const out = await Promise.race([
    p.then(() => true),
    new Promise<boolean>((r) => (timer = setTimeout(() => r(false), ms))),
  ]);
  clearTimeout(timer);
  return out;
}

/** The SDK's in-memory store, observed, and optionally slowed (see the module's text). */
export class KitTaskStore implements TaskStore {
  readonly log: StoreStep[] = [];
  private readonly inner = new InMemoryTaskStore();
  private readonly landedWaiters: { k: number; resolve: () => void }[] = [];
  private readonly landed = new Set<number>();
  private writeHold: { promise: Promise<void>; release: () => void } | undefined;
  private readHold: number | undefined;
  /** Called when a resubscribe's snapshot read begins (after its tap was attached). */
  onSubscribeRead: (() => void) | undefined;

  /**
   * @param latency absent: the SDK's in-memory store as it is; else every write waits
   *   `writeMs` and a resubscribe's read `readMs`, and the placement holds apply.
   */
  constructor(readonly latency?: { writeMs: number; readMs: number }) {}

  /** `slow` when the store has latency, `memory` otherwise. */
  get kind(): 'slow' | 'memory' {
    return this.latency ? 'slow' : 'memory';
  }

  /**
   * Slow store only: writes issued from now on land only after the next resubscribe's snapshot
   * read returned (bounded).
   */
  holdWritesAcrossNextRead(): void {
    if (!this.latency || this.writeHold) return;
    let release!: () => void;
    const promise = new Promise<void>((r) => (release = r));
    this.writeHold = { promise, release };
  }

  /** Slow store only: the next resubscribe's snapshot read reads once e_k has landed (bounded). */
  holdNextReadUntilLanded(k: number): void {
    if (this.latency) this.readHold = k;
  }

  /** Resolves once a saved task holds e_k (bounded by `ms`; rejects when it runs out). */
  async waitLanded(k: number, ms: number): Promise<void> {
    if (this.landed.has(k)) return;
    const p = new Promise<void>((resolve) => this.landedWaiters.push({ k, resolve }));
    if (!(await bounded(p, ms))) throw new Error(`e${k} was not persisted within ${ms} ms`);
  }

  async save(task: Parameters<TaskStore['save']>[0], context: ServerCallContext): Promise<void> {
    const call = callOf(context);
    this.log.push({ what: 'write-begin', call });
    if (this.latency) {
      await sleep(this.latency.writeMs);
      const hold = this.writeHold;
      if (hold && !(await bounded(hold.promise))) this.log.push({ what: 'hold-timeout', call });
    }
    await this.inner.save(task, context);
    const events = eventsIn(task);
    this.log.push({ what: 'landed', call, events });
    for (const k of events) this.landed.add(k);
    for (const w of [...this.landedWaiters]) {
      if (this.landed.has(w.k)) {
        this.landedWaiters.splice(this.landedWaiters.indexOf(w), 1);
        w.resolve();
      }
    }
  }

  async load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    const call = callOf(context);
    if (call !== 'subscribe') return this.inner.load(taskId, context);
    this.log.push({ what: 'read-begin', call });
    this.onSubscribeRead?.();
    if (this.latency) {
      await sleep(this.latency.readMs);
      const k = this.readHold;
      this.readHold = undefined;
      if (k !== undefined && !(await bounded(this.waitLanded(k, HOLD_BOUND_MS).catch(() => {})))) {
        this.log.push({ what: 'hold-timeout', call });
      }
    }
    const task = await this.inner.load(taskId, context);
    this.log.push({ what: 'read', call, events: task ? eventsIn(task) : [] });
    const hold = this.writeHold;
    this.writeHold = undefined;
    hold?.release();
    return task;
  }

  list(...args: Parameters<TaskStore['list']>): ReturnType<TaskStore['list']> {
    return this.inner.list(...args);
  }
}
