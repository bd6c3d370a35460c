/**
 * `ContinuityEventStore`'s index stays bounded however many streams a session writes: a stream
 * forgotten beyond `maxStreams` × (1 + EVICTED_PER_STREAM) leaves the index that resolves
 * cursors. A store that keeps forgotten streams there grows without bound (one entry per
 * request ever made) and answers their cursors as "evicted" instead of "not retained".
 */
import { describe, expect, test } from 'vitest';
import {
  ContinuityEventStore,
  EVICTED_PER_STREAM,
  UnreplayableCursorError,
  type StoredMessage,
} from '../../src/runtime/index.js';

const msg = (i: number): StoredMessage => ({ jsonrpc: '2.0', method: 'm', params: { i } });

/** The mistake: a forgotten stream stays in the index. */
class KeepsForgotten extends ContinuityEventStore {
  protected override evictBeyondLimit(): void {
    const before = new Map(this.byKey);
    super.evictBeyondLimit();
    for (const [key, log] of before) if (!this.byKey.has(key)) this.byKey.set(key, log);
  }
}

/** Writes `n` one-event streams (one per request); the largest index seen and the first id. */
async function oneStreamRequests(store: ContinuityEventStore, n: number) {
  let largest = 0;
  let first = '';
  for (let i = 0; i < n; i++) {
    const id = await store.storeEvent(`req-${i}`, msg(i));
    first ||= id;
    largest = Math.max(largest, store.indexed);
  }
  return { largest, first };
}

describe('ContinuityEventStore index bound', () => {
  const maxStreams = 4;
  const bound = maxStreams * (1 + EVICTED_PER_STREAM);

  test(`2,000 one-stream requests (maxStreams ${maxStreams}): the index never holds more than ${bound}; a forgotten stream's cursor is not retained`, async () => {
    const store = new ContinuityEventStore({ maxStreams });
    const { largest, first } = await oneStreamRequests(store, 2000);
    expect(largest).toBe(bound);
    const error = await store
      .replayEventsAfter(first, { send: async () => {} })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnreplayableCursorError);
    expect((error as Error).message).toMatch(/^stream .* is not retained$/);
  });

  test('kill: a store that keeps forgotten streams in its index grows with every request', async () => {
    const { largest } = await oneStreamRequests(new KeepsForgotten({ maxStreams }), 2000);
    expect(largest).toBe(2000);
  });
});
