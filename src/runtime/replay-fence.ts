/**
 * A fence around a networked event store that closes the SDK transports' replay window.
 *
 * The SDK's Streamable HTTP server transports resume a stream in two steps: they `await` the
 * store's `replayEventsAfter`, and only then register the resumed response for the stream. A
 * live event whose `storeEvent` returns in between is stored but written nowhere: the lookup
 * finds no registered response, and the replay had already read the store. With an in-process
 * store both steps fall in one turn of the event loop, so nothing can land in between; with a
 * store one network round trip away (Redis, a database) the window is a round trip wide, and
 * `slow-store-replay` of the conformance harness loses a message in it every time.
 *
 * The fence orders the two kinds of operation, per store instance (one store per session):
 * - a replay first waits for the writes already in flight, so that they are in what it reads;
 * - a write that starts while a replay is in flight waits until the replay has returned and one
 *   more macrotask has run, by which time the transport has registered the resumed response
 *   (it does so synchronously after its `await`), so the write's lookup finds it.
 * Nothing is reordered within a stream; writes wait at most one replay.
 */
import type { EventStoreLike, StoredMessage } from './continuity-store.js';

/** Resolves after the current macrotask and its microtasks (the transport's registration). */
function nextMacrotask(): Promise<void> {
  return new Promise((r) => setImmediate(r));
}

/**
 * `store` behind the fence described above. Use it around any event store whose operations
 * leave the process; it costs one macrotask per write that meets a replay, nothing otherwise.
 *
 * @category Runtime
 */
export class ReplayFence implements EventStoreLike {
  private readonly writes = new Set<Promise<unknown>>();
  private readonly replays = new Set<Promise<void>>();
  /** Present when the inner store has it (the SDK's precheck of a cursor's stream). */
  readonly getStreamIdForEventId?: (eventId: string) => Promise<string | undefined>;

  /** @param inner The store that holds the events. */
  constructor(readonly inner: EventStoreLike) {
    const get = inner.getStreamIdForEventId?.bind(inner);
    if (get) this.getStreamIdForEventId = async (eventId) => get(eventId);
  }

  /** Stores the event, after any replay in flight has returned and been registered. */
  async storeEvent(streamId: string, message: StoredMessage): Promise<string> {
    while (this.replays.size > 0) await Promise.all([...this.replays]);
    const write = Promise.resolve(this.inner.storeEvent(streamId, message));
    this.writes.add(write);
    const forget = () => this.writes.delete(write);
    write.then(forget, forget);
    return write;
  }

  /** Replays after the writes in flight have landed; later writes wait for it (see above). */
  async replayEventsAfter(
    lastEventId: string,
    sink: { send: (eventId: string, message: StoredMessage) => Promise<void> },
  ): Promise<string> {
    const inFlight = [...this.writes];
    const replay = (async () => {
      await Promise.allSettled(inFlight);
      return this.inner.replayEventsAfter(lastEventId, sink);
    })();
    const fence = replay.then(nextMacrotask, nextMacrotask);
    this.replays.add(fence);
    const forget = () => this.replays.delete(fence);
    fence.then(forget, forget);
    return replay;
  }
}
