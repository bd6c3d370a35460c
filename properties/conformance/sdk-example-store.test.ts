/**
 * The SDK's example InMemoryEventStore (imported unchanged from @modelcontextprotocol/sdk), at
 * the unit level: behaviours the matrix reports, asserted so that a release changing them fails
 * here by name.
 */
import { InMemoryEventStore } from '@modelcontextprotocol/sdk/examples/shared/inMemoryEventStore.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { expect, test, vi } from 'vitest';

const msg = (i: number): JSONRPCMessage => ({ jsonrpc: '2.0', method: 'm', params: { i } });

async function replayIds(store: InMemoryEventStore, cursor: string) {
  const ids: string[] = [];
  const stream = await store.replayEventsAfter(cursor, { send: async (id) => void ids.push(id) });
  return { stream, ids };
}

test('the standalone GET stream (_GET_stream) can never be resumed: its ids parse to stream ""', async () => {
  const store = new InMemoryEventStore();
  const first = await store.storeEvent('_GET_stream', msg(1));
  await store.storeEvent('_GET_stream', msg(2));
  const { stream, ids } = await replayIds(store, first);
  // The SDK transport then registers the resumed connection under "" and the standalone
  // stream's later notifications are only stored: a 200 that never delivers.
  expect(stream).toBe('');
  expect(ids).toEqual([]);
});

test('an unknown cursor is answered with stream "" and nothing (the transport then says 200)', async () => {
  const store = new InMemoryEventStore();
  await store.storeEvent('s1', msg(1));
  expect(await replayIds(store, 's1_0_unknown')).toEqual({ stream: '', ids: [] });
});

test('it never evicts: every event stays stored (memory grows with the session)', async () => {
  const store = new InMemoryEventStore();
  for (let i = 1; i <= 5000; i++) await store.storeEvent('s1', msg(i));
  expect((store as unknown as { events: Map<string, unknown> }).events.size).toBe(5000);
});

test('same-millisecond ids sort by a random suffix: a replay from inside a burst loses events', async () => {
  // Pin the clock and the suffixes: left to the real clock, whether the cursor's suffix sorts
  // low in its millisecond (or the cursor ends its millisecond) is chance, and CI once drew the
  // case that loses nothing. Here every id shares one millisecond and the suffixes are fixed.
  const now = vi.spyOn(Date, 'now').mockReturnValue(1_700_000_000_000);
  // The cursor draws 0.5; event i after it draws just below 0.5 when i is odd and just above
  // when i is even, so exactly half of the 2000 later events sort below the cursor.
  let draw = 0;
  const random = vi.spyOn(Math, 'random').mockImplementation(() => {
    const i = draw++;
    return i === 0 ? 0.5 : 0.5 + (i % 2 === 0 ? 1 : -1) * i * 1e-5;
  });
  try {
    const store = new InMemoryEventStore();
    const first = await store.storeEvent('s1', msg(0));
    const later: string[] = [];
    for (let i = 1; i <= 2000; i++) later.push(await store.storeEvent('s1', msg(i)));
    const { ids } = await replayIds(store, first);
    // 2000 events follow the cursor; the 1000 whose suffix sorts below it (the odd draws, at
    // even positions of `later`) are never replayed, and exactly the other 1000 are.
    expect(new Set(later).size).toBe(2000);
    expect(ids.length).toBe(1000);
    expect(new Set(ids)).toEqual(new Set(later.filter((_, k) => k % 2 === 1)));
  } finally {
    now.mockRestore();
    random.mockRestore();
  }
});
