/**
 * The world's mechanics, one at a time: backpressure, the shared and independent keepalive
 * writers, the ring buffer, restarts, determinism, and that the client never reads server state.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { clientState } from '../../model/world/client.js';
import { applyCommand, type WorldCommand } from '../../model/world/commands.js';
import {
  DEFAULT_CONFIG,
  formatConfig,
  parseConfig,
  type WorldConfig,
} from '../../model/world/config.js';
import { floorOf } from '../../model/world/server.js';
import { runWorld } from '../../model/world/property.js';
import { createWorld } from '../../model/world/world.js';

const emit: WorldCommand = { kind: 'Emit', stream: 'tool' };
const wait = (ms: number): WorldCommand => ({ kind: 'Advance', ms });
const cfg = (over: Partial<WorldConfig>): WorldConfig => ({ ...DEFAULT_CONFIG, I: 0, ...over });

function world(c: WorldConfig, cmds: WorldCommand[]) {
  const w = createWorld(c, { record: true });
  for (const x of cmds) {
    w.command++;
    applyCommand(w, x);
  }
  return w;
}

describe('world mechanics', () => {
  test('a full socket blocks the writer and the shared keepalive behind it', () => {
    const w = world(cfg({ B: 2, K: 1_000, T: 5_000, read: 'coupled' }), [
      { kind: 'SaturateApp' },
      emit,
      emit,
      emit,
      wait(3_500),
    ]);
    expect(w.net.socket).toHaveLength(2);
    expect(w.server.out.map((q) => q.frame.k)).toEqual(['event', 'keepalive']);
    expect(w.server.keepaliveBlocked).toBe(true);
    expect(w.client.delivered).toHaveLength(0);
    applyCommand(w, wait(2_000)); // the idle timer (5 s on bytes) fires at 5 s
    expect(w.truth.idle[0]).toEqual({ t: 5_000, connectionUp: true });
  });

  test('an independent keepalive bypasses the full writer', () => {
    const w = world(cfg({ B: 1, K: 1_000, keepalive: 'independent', read: 'coupled' }), [
      { kind: 'SaturateApp' },
      emit,
      emit,
      wait(1_000),
    ]);
    expect(w.net.socket.map((f) => f.k)).toEqual(['event', 'keepalive']);
  });

  test('a decoupled reader drains while the application is saturated', () => {
    const w = world(cfg({ B: 1 }), [{ kind: 'SaturateApp' }, emit, emit, emit, wait(1)]);
    expect(w.client.delivered.map((e) => e.id)).toEqual([1, 2, 3]);
    expect(w.client.appBacklog).toBe(3);
  });

  test('the ring keeps the last D events and the evicted ones are ground truth', () => {
    const w = world(cfg({ D: 3, N: 10 }), [emit, emit, emit, emit, emit, { kind: 'Evict' }]);
    expect(w.server.log.map((e) => e.id)).toEqual([4, 5]);
    expect(floorOf(w.server)).toBe(4);
    expect(w.truth.evicted).toEqual([1, 2, 3]);
  });

  test('a durable restart keeps the log; an in-memory one loses the session', () => {
    const durable = world(cfg({ durable: true }), [emit, emit, { kind: 'Restart' }, wait(5_000)]);
    expect(clientState(durable.client)).toBe('resumed');
    expect(durable.client.delivered.map((e) => e.id)).toEqual([1, 2]);
    expect(durable.truth.sessionLostAt).toBeNull();
    const lost = world(cfg({ durable: false }), [emit, { kind: 'Restart' }, wait(5_000)]);
    expect(clientState(lost.client)).toBe('sessionLost');
    expect(lost.truth.sessionLostAt).toBe(0);
  });

  test('the same commands give the same timeline (no real time, no randomness)', () => {
    const cmds: WorldCommand[] = [emit, wait(20_000), { kind: 'Disconnect', silent: true }, emit];
    const c = cfg({ N: 4 });
    const a = runWorld(c, cmds, {}, { record: true });
    const b = runWorld(c, cmds, {}, { record: true });
    expect(a.timeline).toEqual(b.timeline);
    expect(a.client.done).toBe('complete');
  });

  test('configurations read back what they print', () => {
    const c = parseConfig('D=inf,K=1000,policy=head,durable=false');
    expect(parseConfig(formatConfig(c))).toEqual(c);
    expect(() => parseConfig('X=1')).toThrow(/unknown config key/);
  });

  test('the client reaches the server only through its port', () => {
    const src = readFileSync(new URL('../../model/world/client.ts', import.meta.url), 'utf8');
    expect(src).not.toMatch(/from '\.\/(server|policies|ground-truth|world)\.js'/);
  });
});
