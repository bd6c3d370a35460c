/**
 * Event stores used by the adapters, besides the SDK's own example store (imported from the
 * SDK package, unchanged) and the project's `ContinuityEventStore`.
 */
import type { EventStoreLike, StoredMessage } from '../runtime/continuity-store.js';

export type { EventStoreLike, StoredMessage };

/**
 * A bounded ring buffer of the usual shape: one global sequence, ids `<stream>_<seq>`, the
 * oldest event evicted once `capacity` is reached. An unknown (or evicted) cursor is answered
 * the way the SDK's example `InMemoryEventStore` answers it: `replayEventsAfter` returns `''`
 * and replays nothing, and there is no `getStreamIdForEventId`, so the transport answers 200.
 * This is what the harness calls "the usual shape"; it is not a recommendation.
 */
export class RingBufferEventStore implements EventStoreLike {
  private readonly events: { id: string; streamId: string; message: StoredMessage }[] = [];
  private next = 1;

  constructor(readonly capacity: number) {
    if (!(capacity >= 1)) throw new Error('capacity must be at least 1');
  }

  /** Stores an event under the next global sequence number, evicting the oldest. */
  async storeEvent(streamId: string, message: StoredMessage): Promise<string> {
    const id = `${streamId}_${this.next++}`;
    this.events.push({ id, streamId, message });
    while (this.events.length > this.capacity) this.events.shift();
    return id;
  }

  /** Replays the events of the cursor's stream after it; `''` for an unknown cursor. */
  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: StoredMessage) => Promise<void> },
  ): Promise<string> {
    const at = this.events.findIndex((e) => e.id === lastEventId);
    if (at < 0) return '';
    const streamId = this.events[at]!.streamId;
    for (const e of this.events.slice(at + 1)) {
      if (e.streamId === streamId) await send(e.id, e.message);
    }
    return streamId;
  }

  /** Number of events retained. */
  get size(): number {
    return this.events.length;
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Any event store behind an asynchronous delay, as a networked store (Redis, a database) puts
 * one on every operation: the request travels to the store, the answer travels back.
 *
 * - `storeEvent`: waits `delayMs`, then stores (the write lands at the store after the trip).
 * - `replayEventsAfter`: waits `delayMs` (the request reaches the store), reads the inner
 *   store's replay into a snapshot at that instant (the store answers the read), waits
 *   `delayMs` again (the answer travels back), then sends the snapshot and resolves to the
 *   stream id. Events stored after the read are not in the snapshot, exactly as events written
 *   after a Redis `XRANGE` ran are not in its reply; an in-process store has no such gap,
 *   since it reads to the end and returns within one turn of the event loop.
 * - `getStreamIdForEventId` (only when the inner store has it): waits `delayMs`, then asks.
 *
 * A refusal of the inner replay comes back after the second delay too (`slow-store-replay`
 * measures the window this opens between the end of the SDK transports' `replayEventsAfter`
 * and their registration of the resumed stream).
 *
 * `onReplayRead`, when given, is awaited right after the read (before the answer travels
 * back): a scenario stores a live event there to put it in the window without a timer, so the
 * interleaving holds on a loaded machine too.
 */
export class DelayedEventStore implements EventStoreLike {
  /** Present when the inner store has it: the inner answer, after `delayMs`. */
  readonly getStreamIdForEventId?: (eventId: string) => Promise<string | undefined>;

  /**
   * @param inner The store that holds the events.
   * @param delayMs Milliseconds each leg of an operation takes (0: no delay, but still
   *   asynchronous).
   * @param onReplayRead Awaited after each replay's read, before its answer travels back
   *   (`StartOptions.onReplayRead`).
   */
  constructor(
    readonly inner: EventStoreLike,
    readonly delayMs: number,
    private readonly onReplayRead?: (lastEventId: string) => Promise<void>,
  ) {
    if (!(delayMs >= 0) || !Number.isFinite(delayMs)) {
      throw new Error('delayMs must be a finite number >= 0');
    }
    const get = inner.getStreamIdForEventId?.bind(inner);
    if (get) {
      this.getStreamIdForEventId = async (eventId) => {
        await sleep(this.delayMs);
        return get(eventId);
      };
    }
  }

  /** Stores the event after `delayMs`. */
  async storeEvent(streamId: string, message: StoredMessage): Promise<string> {
    await sleep(this.delayMs);
    return this.inner.storeEvent(streamId, message);
  }

  /** Reads the replay after `delayMs`, sends that snapshot after `delayMs` more. */
  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: StoredMessage) => Promise<void> },
  ): Promise<string> {
    await sleep(this.delayMs);
    const snapshot: { id: string; message: StoredMessage }[] = [];
    let streamId: string;
    try {
      streamId = await this.inner.replayEventsAfter(lastEventId, {
        send: async (id, message) => {
          snapshot.push({ id, message });
        },
      });
    } catch (e) {
      await sleep(this.delayMs);
      throw e;
    }
    await this.onReplayRead?.(lastEventId);
    await sleep(this.delayMs);
    for (const { id, message } of snapshot) await send(id, message);
    return streamId;
  }
}
