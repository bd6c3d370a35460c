/**
 * The SDK's example InMemoryEventStore (imported unchanged from @modelcontextprotocol/sdk), at
 * the unit level: behaviours the matrix reports, asserted so that a release changing them fails
 * here by name.
 */
import { InMemoryEventStore } from '@modelcontextprotocol/sdk/examples/shared/inMemoryEventStore.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { expect, test } from 'vitest';

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
  const store = new InMemoryEventStore();
  const first = await store.storeEvent('s1', msg(0));
  for (let i = 1; i <= 2000; i++) await store.storeEvent('s1', msg(i));
  // 2000 events follow the cursor; those of its millisecond whose suffix sorts lower are lost.
  expect((await replayIds(store, first)).ids.length).toBeLessThan(2000);
});
