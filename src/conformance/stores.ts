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
