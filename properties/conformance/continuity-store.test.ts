/**
 * ContinuityEventStore on its own: ids, floor, refusals, the acknowledgment; it is an SDK
 * EventStore for both major versions; and a mutant of it (answering an unknown cursor the way
 * the SDK's example does) is killed by the matrix's reference-row assertion.
 */
import type { EventStore as EventStoreV1 } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { EventStore as EventStoreV2 } from '@modelcontextprotocol/server';
import { describe, expect, test } from 'vitest';
import {
  CONTINUITY_ID_PATTERN,
  ContinuityEventStore,
  isReplayAck,
  UnreplayableCursorError,
  type StoredMessage,
} from '../../src/index.js';
import { sdkV1Adapter } from '../../src/conformance/adapters/sdk.js';
import { runCell } from '../../src/conformance/rows/matrix.js';
import { resumeAfterEviction, staleConnection } from '../../src/conformance/scenarios/index.js';
import { patternCodec } from '../../src/conformance/types.js';

const msg = (i: number): StoredMessage => ({ jsonrpc: '2.0', method: 'm', params: { i } });

async function replay(store: ContinuityEventStore, cursor: string) {
  const sent: { id: string; message: StoredMessage }[] = [];
  const stream = await store.replayEventsAfter(cursor, {
    send: async (id, message) => void sent.push({ id, message }),
  });
  return { stream, sent };
}

describe('ContinuityEventStore', () => {
  test('is an EventStore of the SDK 1.x and of the server 2.x', () => {
    const v1: EventStoreV1 = new ContinuityEventStore();
    const v2: EventStoreV2 = new ContinuityEventStore({ precheck: true });
    expect(v1).toBeDefined();
    expect(v2.getStreamIdForEventId).toBeTypeOf('function');
    expect((v1 as ContinuityEventStore).getStreamIdForEventId).toBeUndefined();
  });

  test.each([
    [{ capacity: 0 }, /^capacity and maxStreams must be at least 1$/],
    [{ capacity: Number.NaN }, /^capacity and maxStreams must be at least 1$/],
    [{ maxStreams: 0 }, /^capacity and maxStreams must be at least 1$/],
    [{ epoch: 'A1' }, /^epoch must be \[0-9a-z\]\+$/],
    [{ epoch: 'a-' }, /^epoch must be \[0-9a-z\]\+$/],
  ])('refuses the options %o', (options, message) => {
    expect(() => new ContinuityEventStore(options)).toThrow(message);
  });

  test('takes the smallest bounds (one event, one stream)', async () => {
    const store = new ContinuityEventStore({ capacity: 1, maxStreams: 1, epoch: 'a1' });
    expect(await store.storeEvent('A', msg(1))).toBe('a1-s1-1');
  });

  test('isReplayAck: only an object with the method', () => {
    for (const v of [null, undefined, 'x', 5, {}, { method: 'm' }])
      expect(isReplayAck(v)).toBe(false);
    expect(isReplayAck({ method: 'notifications/mcp-resumption/replay' })).toBe(true);
  });

  test('ids name the stream and count each stream from 1 without gaps', async () => {
    const store = new ContinuityEventStore({ epoch: 'e1' });
    const a = [await store.storeEvent('A', msg(1)), await store.storeEvent('B', msg(1))];
    a.push(await store.storeEvent('A', msg(2)), await store.storeEvent('A', msg(3)));
    expect(a).toEqual(['e1-s1-1', 'e1-s2-1', 'e1-s1-2', 'e1-s1-3']);
    for (const id of a) expect(CONTINUITY_ID_PATTERN.test(id)).toBe(true);
  });

  test('a replay starts with an id-less acknowledgment, then every event after the cursor', async () => {
    const store = new ContinuityEventStore({ epoch: 'e1', capacity: 4 });
    const ids: string[] = [];
    for (let i = 1; i <= 6; i++) ids.push(await store.storeEvent('A', msg(i)));
    const { stream, sent } = await replay(store, ids[2]!);
    expect(stream).toBe('A');
    expect(sent[0]!.id).toBe('');
    expect(isReplayAck(sent[0]!.message)).toBe(true);
    expect(sent[0]!.message).toMatchObject({ params: { after: 3, floor: 3, head: 6 } });
    expect(sent.slice(1).map((s) => s.id)).toEqual(['e1-s1-4', 'e1-s1-5', 'e1-s1-6']);
  });

  test('the cursor just below the floor is still replayable; one further is refused', async () => {
    const store = new ContinuityEventStore({ epoch: 'e1', capacity: 3, precheck: true });
    for (let i = 1; i <= 6; i++) await store.storeEvent('A', msg(i));
    // retained 4..6, floor 4: cursor 3 is fine, cursor 2 lost event 3.
    expect(await store.getStreamIdForEventId!('e1-s1-3')).toBe('A');
    expect(await store.getStreamIdForEventId!('e1-s1-2')).toBeUndefined();
    await expect(replay(store, 'e1-s1-2')).rejects.toBeInstanceOf(UnreplayableCursorError);
  });

  test.each([
    ['another store (session or process)', 'zz-s1-1'],
    ['an unknown stream', 'e1-s9-1'],
    ['a cursor ahead of the head', 'e1-s1-99'],
    ['not an id of this store', 'A_1733000000000_abc'],
  ])('refuses %s, before sending anything', async (_w, cursor) => {
    const store = new ContinuityEventStore({ epoch: 'e1' });
    await store.storeEvent('A', msg(1));
    const sent: string[] = [];
    await expect(
      store.replayEventsAfter(cursor, { send: async (id) => void sent.push(id) }),
    ).rejects.toBeInstanceOf(UnreplayableCursorError);
    expect(sent).toEqual([]);
  });

  test('events stored while a replay runs are replayed too', async () => {
    const store = new ContinuityEventStore({ epoch: 'e1' });
    const first = await store.storeEvent('A', msg(1));
    await store.storeEvent('A', msg(2));
    const sent: string[] = [];
    await store.replayEventsAfter(first, {
      send: async (id) => {
        sent.push(id);
        if (id === 'e1-s1-2') await store.storeEvent('A', msg(3));
      },
    });
    expect(sent).toEqual(['', 'e1-s1-2', 'e1-s1-3']);
  });

  test("300 streams round-robin on one store (maxStreams 256): never renumbered; an evicted stream's cursors refused, a retained one's replayed exactly", async () => {
    const store = new ContinuityEventStore({ epoch: 'e1' });
    const ids = new Map<string, string[]>();
    for (let round = 1; round <= 3; round++) {
      for (let s = 0; s < 300; s++) {
        const id = await store.storeEvent(`S${s}`, msg(round));
        ids.set(`S${s}`, [...(ids.get(`S${s}`) ?? []), id]);
      }
    }
    const parts = (id: string) => CONTINUITY_ID_PATTERN.exec(id)!.groups!;
    for (const list of ids.values()) {
      expect(new Set(list.map((id) => parts(id).stream)).size).toBe(1);
      expect(list.map((id) => Number(parts(id).seq))).toEqual([1, 2, 3]);
    }
    // S0..S43 were written least recently: evicted, every cursor of theirs refused.
    for (const cursor of [...ids.get('S0')!, ...ids.get('S43')!]) {
      await expect(replay(store, cursor)).rejects.toBeInstanceOf(UnreplayableCursorError);
    }
    // S44..S299 are retained: a cursor replays exactly what followed it.
    for (const s of ['S44', 'S299']) {
      const [, second, third] = ids.get(s)!;
      const { stream, sent } = await replay(store, second!);
      expect(stream).toBe(s);
      expect(sent.map((e) => e.id)).toEqual(['', third]);
      expect(sent[1]!.message).toEqual(msg(3));
    }
  });

  test('an evicted stream written again keeps its number and counts on; its older cursors stay refused', async () => {
    const store = new ContinuityEventStore({ epoch: 'e1', maxStreams: 1 });
    const a1 = await store.storeEvent('A', msg(1));
    const a2 = await store.storeEvent('A', msg(2));
    await store.storeEvent('B', msg(1)); // evicts A
    await expect(replay(store, a2)).rejects.toThrow(/evicted/);
    const a3 = await store.storeEvent('A', msg(3)); // evicts B, A is back
    expect([a1, a2, a3]).toEqual(['e1-s1-1', 'e1-s1-2', 'e1-s1-3']);
    await expect(replay(store, a1)).rejects.toBeInstanceOf(UnreplayableCursorError);
    // Nothing after a2 was lost: 3 is retained.
    expect((await replay(store, a2)).sent.map((e) => e.id)).toEqual(['', a3]);
  });

  test('a replay is a use: the least recently used stream is evicted, not the one just resumed', async () => {
    const store = new ContinuityEventStore({ epoch: 'e1', maxStreams: 2 });
    const a = await store.storeEvent('A', msg(1));
    const b = await store.storeEvent('B', msg(1));
    await replay(store, a);
    await store.storeEvent('C', msg(1)); // evicts B, the least recently used
    expect((await replay(store, a)).stream).toBe('A');
    await expect(replay(store, b)).rejects.toBeInstanceOf(UnreplayableCursorError);
  });

  test('evicted streams are remembered up to 16 x maxStreams; one forgotten beyond that is a new stream if written again', async () => {
    const store = new ContinuityEventStore({ epoch: 'e1', maxStreams: 1 });
    const a1 = await store.storeEvent('A', msg(1));
    for (let s = 1; s <= 16; s++) await store.storeEvent(`X${s}`, msg(1));
    expect(await store.storeEvent('A', msg(2))).toBe('e1-s1-2'); // 16 evicted: still known
    for (let s = 1; s <= 17; s++) await store.storeEvent(`Y${s}`, msg(1));
    const again = await store.storeEvent('A', msg(3)); // forgotten: a new number, from 1
    expect(again).toMatch(/^e1-s\d+-1$/);
    expect(again).not.toBe(a1);
    await expect(replay(store, a1)).rejects.toBeInstanceOf(UnreplayableCursorError);
  });

  test('beyond maxStreams the least recently written stream is dropped, and refused', async () => {
    const store = new ContinuityEventStore({ epoch: 'e1', maxStreams: 2, precheck: true });
    const a = await store.storeEvent('A', msg(1));
    await store.storeEvent('B', msg(1));
    await store.storeEvent('A', msg(2));
    await store.storeEvent('C', msg(1)); // drops B, the least recently written
    expect(await store.getStreamIdForEventId!(a)).toBe('A');
    expect(await store.getStreamIdForEventId!('e1-s2-1')).toBeUndefined();
  });
});

/**
 * The kill: the same store with one change (an unknown cursor answered with `''`, as the SDK's
 * example answers it) turns the reference row's after-eviction cell into silent loss, which the
 * matrix test forbids for the reference rows.
 */
test('kill: a ContinuityEventStore that answers an evicted cursor like the SDK example is caught', async () => {
  class Mutant extends ContinuityEventStore {
    override async replayEventsAfter(
      lastEventId: string,
      h: { send: (id: string, m: StoredMessage) => Promise<void> },
    ): Promise<string> {
      try {
        return await super.replayEventsAfter(lastEventId, h);
      } catch {
        return '';
      }
    }
  }
  const make = (mutant: boolean) =>
    sdkV1Adapter({
      label: mutant ? 'mutant' : 'ContinuityEventStore',
      codec: patternCodec(CONTINUITY_ID_PATTERN),
      evict: true,
      scope: 'one store per session',
      make: (o) =>
        mutant
          ? new Mutant({ capacity: o.retention })
          : new ContinuityEventStore({ capacity: o.retention }),
    });
  const original = await runCell(
    { name: 'original', make: () => make(false) },
    resumeAfterEviction,
  );
  const mutant = await runCell({ name: 'mutant', make: () => make(true) }, resumeAfterEviction);
  expect(original.verdict).toBe('rejected');
  expect(mutant.verdict).toBe('silent loss');
});

/**
 * What docs/conformance.md says of `precheck`, measured on the real SDK 1.x transport: the
 * refusal becomes a 400, and a resume racing a still-open old connection becomes a 409.
 */
test('precheck: the SDK answers 400 for an evicted cursor, and 409 while the old connection is open', async () => {
  const spec = {
    label: 'ContinuityEventStore (precheck)',
    codec: patternCodec(CONTINUITY_ID_PATTERN),
    evict: true,
    scope: 'one store per session',
    make: (o: { retention: number }) =>
      new ContinuityEventStore({ capacity: o.retention, precheck: true }),
  };
  const entry = { name: 'precheck', make: () => sdkV1Adapter(spec) };
  const evicted = await runCell(entry, resumeAfterEviction);
  expect(evicted.verdict).toBe('rejected');
  expect(evicted.observed).toBe('400');
  const stale = await runCell(entry, staleConnection);
  expect(stale.verdict).toBe('rejected');
  expect(stale.observed).toBe('409');
});
