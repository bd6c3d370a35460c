/**
 * The replay fence (src/runtime/replay-fence.ts) against an inner store whose every operation
 * the test completes by hand, so that each ordering the fence promises is shown in one turn of
 * the event loop, without delays: a replay reads after the writes in flight; a write that meets
 * a replay waits for it and one macrotask more (the transport's registration of the resumed
 * response); a refusal of either passes through and releases the fence.
 */
import { describe, expect, test } from 'vitest';
import type { EventStoreLike, StoredMessage } from '../../src/runtime/continuity-store.js';
import { ReplayFence } from '../../src/runtime/replay-fence.js';

const msg = (i: number): StoredMessage => ({ jsonrpc: '2.0', method: 'm', params: { i } });

interface Pending<T> {
  resolve: (v: T) => void;
  reject: (e: Error) => void;
}

/** An inner store that records each call and settles it only when the test says so. */
function manualStore(withPrecheck = false) {
  const log: string[] = [];
  const writes: Pending<string>[] = [];
  const replays: Pending<string>[] = [];
  const store: EventStoreLike = {
    storeEvent: (streamId, message) => {
      log.push(`store ${streamId} ${JSON.stringify(message.params)}`);
      return new Promise<string>((resolve, reject) => writes.push({ resolve, reject }));
    },
    replayEventsAfter: (lastEventId) => {
      log.push(`replay ${lastEventId}`);
      return new Promise<string>((resolve, reject) => replays.push({ resolve, reject }));
    },
    ...(withPrecheck
      ? { getStreamIdForEventId: async (id: string) => (id === 'known' ? 'A' : undefined) }
      : {}),
  };
  return { store, log, writes, replays };
}

/** Lets every timer, macrotask and microtask queued so far run. */
const drain = () => new Promise((r) => setTimeout(r, 0));
const sink = { send: async () => {} };

describe('ReplayFence', () => {
  test('with nothing in flight both operations go straight to the inner store', async () => {
    const inner = manualStore();
    const fence = new ReplayFence(inner.store);
    const write = fence.storeEvent('A', msg(1));
    await drain();
    expect(inner.log).toEqual(['store A {"i":1}']);
    inner.writes[0]!.resolve('id-1');
    expect(await write).toBe('id-1');
    const replay = fence.replayEventsAfter('c', sink);
    await drain();
    expect(inner.log).toEqual(['store A {"i":1}', 'replay c']);
    inner.replays[0]!.resolve('A');
    expect(await replay).toBe('A');
  });

  test('a replay waits for the writes in flight, whether they land or fail', async () => {
    const inner = manualStore();
    const fence = new ReplayFence(inner.store);
    const w1 = fence.storeEvent('A', msg(1));
    const w2 = fence.storeEvent('A', msg(2));
    await drain();
    const replay = fence.replayEventsAfter('c', sink);
    await drain();
    expect(inner.log).toEqual(['store A {"i":1}', 'store A {"i":2}']);
    inner.writes[0]!.resolve('id-1');
    await drain();
    expect(inner.log).not.toContain('replay c');
    inner.writes[1]!.reject(new Error('store down'));
    await expect(w2).rejects.toThrow('store down');
    await drain();
    expect(inner.log).toEqual(['store A {"i":1}', 'store A {"i":2}', 'replay c']);
    expect(await w1).toBe('id-1');
    inner.replays[0]!.resolve('A');
    expect(await replay).toBe('A');
  });

  test('a write that lands is forgotten: a later replay does not wait for it again', async () => {
    const inner = manualStore();
    const fence = new ReplayFence(inner.store);
    const w = fence.storeEvent('A', msg(1));
    await drain();
    inner.writes[0]!.resolve('id-1');
    await w;
    // A write forgotten or not, the replay goes ahead; a failed write too.
    const w2 = fence.storeEvent('A', msg(2));
    await drain();
    inner.writes[1]!.reject(new Error('lost'));
    await expect(w2).rejects.toThrow('lost');
    const replay = fence.replayEventsAfter('c', sink);
    await drain();
    expect(inner.log.at(-1)).toBe('replay c');
    inner.replays[0]!.resolve('A');
    await replay;
  });

  test('a write that starts during a replay reaches the store only after the replay returned and one macrotask ran', async () => {
    const inner = manualStore();
    const fence = new ReplayFence(inner.store);
    const order: string[] = [];
    const replay = fence.replayEventsAfter('c', sink).then((s) => {
      order.push('replay returned');
      // The transport registers the resumed response synchronously after its await.
      queueMicrotask(() => order.push('registered'));
      return s;
    });
    await drain();
    const write = fence.storeEvent('A', msg(4));
    await drain();
    expect(inner.log).toEqual(['replay c']);
    inner.replays[0]!.resolve('A');
    await replay;
    expect(inner.log).toEqual(['replay c']);
    await drain();
    order.push(...inner.log.slice(1));
    expect(order).toEqual(['replay returned', 'registered', 'store A {"i":4}']);
    inner.writes[0]!.resolve('id-4');
    expect(await write).toBe('id-4');
  });

  test('a replay that fails releases the fence: the waiting write goes on, the error passes through', async () => {
    const inner = manualStore();
    const fence = new ReplayFence(inner.store);
    const replay = fence.replayEventsAfter('c', sink);
    await drain();
    const write = fence.storeEvent('A', msg(5));
    inner.replays[0]!.reject(new Error('unknown cursor'));
    await expect(replay).rejects.toThrow('unknown cursor');
    await drain();
    expect(inner.log).toEqual(['replay c', 'store A {"i":5}']);
    inner.writes[0]!.resolve('id-5');
    expect(await write).toBe('id-5');
    // And the fence is open again: a new write goes straight through.
    const next = fence.storeEvent('A', msg(6));
    await Promise.resolve();
    await Promise.resolve();
    expect(inner.log).toEqual(['replay c', 'store A {"i":5}', 'store A {"i":6}']);
    inner.writes[1]!.resolve('id-6');
    await next;
  });

  test('a write waits for every replay in flight, also one that starts while it waits', async () => {
    const inner = manualStore();
    const fence = new ReplayFence(inner.store);
    const r1 = fence.replayEventsAfter('c1', sink);
    await drain();
    const write = fence.storeEvent('A', msg(7));
    inner.replays[0]!.resolve('A');
    await r1;
    const r2 = fence.replayEventsAfter('c2', sink);
    await drain();
    expect(inner.log).toEqual(['replay c1', 'replay c2']);
    inner.replays[1]!.resolve('A');
    await r2;
    await drain();
    expect(inner.log).toEqual(['replay c1', 'replay c2', 'store A {"i":7}']);
    inner.writes[0]!.resolve('id-7');
    await write;
  });

  test('the fence keeps no settled operation: its bookkeeping does not grow with the writes', async () => {
    const inner = manualStore();
    const fence = new ReplayFence(inner.store);
    const held = fence as unknown as { writes: Set<unknown>; replays: Set<unknown> };
    for (let i = 0; i < 3; i++) {
      const w = fence.storeEvent('A', msg(i));
      await drain();
      if (i === 1) inner.writes[i]!.reject(new Error('down'));
      else inner.writes[i]!.resolve(`id-${i}`);
      await w.catch(() => {});
    }
    const r = fence.replayEventsAfter('c', sink);
    await drain();
    inner.replays[0]!.resolve('A');
    await r;
    await drain();
    expect([held.writes.size, held.replays.size]).toEqual([0, 0]);
  });

  test('getStreamIdForEventId is passed through, answering as the inner store, only when it has one', async () => {
    expect(new ReplayFence(manualStore().store).getStreamIdForEventId).toBeUndefined();
    const fence = new ReplayFence(manualStore(true).store);
    expect(await fence.getStreamIdForEventId!('known')).toBe('A');
    expect(await fence.getStreamIdForEventId!('other')).toBeUndefined();
    expect(fence.inner).toBeDefined();
  });
});
