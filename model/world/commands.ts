/**
 * The named commands and faults of the world: `Emit`, `Evict`, `Restart` (or
 * `Restart(2026-07-28)`, a rolling upgrade into the era without resumable streams), `SaturateApp`,
 * `ReleaseApp`, `Drain`, `Advance(ms)`, `Disconnect`, `Reconnect`. Each is plain data, applied
 * by {@link applyCommand}; the epilogue {@link quiesce} lets a run finish.
 */
import { noticeDisconnect, reconnect } from './client.js';
import { isWirePolicy } from './config.js';
import { emit, emitOther, evictOldest, restart, restartAs2026 } from './server.js';
import { advance, disconnectNetwork, generationIn, note, pump, type World } from './world.js';

/** One command of an interleaving. */
export type WorldCommand =
  | { kind: 'Emit'; stream: 'tool' | 'other' }
  | { kind: 'Evict' }
  /** `era`: the server comes back as a 2026-07-28 server (a rolling upgrade, mid-call). */
  | { kind: 'Restart'; era?: '2026-07-28' }
  | { kind: 'SaturateApp' }
  | { kind: 'ReleaseApp' }
  | { kind: 'Drain' }
  | { kind: 'Advance'; ms: number }
  | { kind: 'Disconnect'; silent: boolean }
  | { kind: 'Reconnect' };

/** The command as written in timelines and counterexamples. */
export function describeCommand(c: WorldCommand): string {
  switch (c.kind) {
    case 'Emit':
      return c.stream === 'tool' ? 'Emit' : 'Emit(other)';
    case 'Advance':
      return `Advance(${c.ms})`;
    case 'Disconnect':
      return c.silent ? 'Disconnect(silent)' : 'Disconnect';
    case 'Restart':
      return c.era === undefined ? 'Restart' : `Restart(${c.era})`;
    default:
      return c.kind;
  }
}

function emitTool(w: World): void {
  const s = w.server;
  if (!s.toolAlive || s.toolEvents >= w.cfg.N) {
    note(w, 'server', 'tool has nothing more to emit', { k: 'tool-done' });
    return;
  }
  const ready = s.lastEmitAt + w.cfg.I;
  if (ready > w.clock.now) advance(w, ready - w.clock.now);
  const f = emit(s, w.cfg, w.clock.now, w.truth);
  if (f !== null) {
    if (w.timeline !== null)
      note(
        w,
        'server',
        `emits ${f.result ? 'result' : 'progress'} event ${f.id}${generationIn(w, f.id) === null ? '' : ` (generation ${generationIn(w, f.id)})`}`,
        {
          k: 'emit',
          id: f.id,
          result: f.result,
        },
      );
    pump(w, false);
  }
}

/** Applies one command to the world. */
export function applyCommand(w: World, c: WorldCommand): void {
  // A run of quiet polls is one of time alone: a command ends it (model/world/quiet-polls.ts).
  w.pollMark = null;
  switch (c.kind) {
    case 'Emit':
      if (c.stream === 'tool') emitTool(w);
      else {
        const f = emitOther(w.server, w.cfg, w.clock.now);
        if (w.timeline !== null)
          note(w, 'server', `emits event ${f.id} on the other stream`, {
            k: 'emit-other',
            id: f.id,
          });
      }
      return;
    case 'Evict': {
      const id = evictOldest(w.server, w.truth);
      if (w.timeline !== null)
        note(w, 'server', id === null ? 'nothing to evict' : `evicts event ${id}`, {
          k: 'evict',
          id,
        });
      return;
    }
    case 'Restart': {
      const wasUp = w.net.up;
      if (wasUp) w.truth.drops.push(w.clock.now);
      w.net.up = false;
      w.net.socket = [];
      // A task-stream receiver resumes in the 2026-07-28 era too (SEP-2694), and an A2A server
      // is no MCP server: there an upgrade is a restart like any other.
      const upgrade = c.era !== undefined && !isWirePolicy(w.policy);
      if (upgrade) restartAs2026(w.server, w.clock.now, w.truth);
      else restart(w.server, w.cfg, w.clock.now, w.truth);
      // The JS SDK's executor runs in the server's process: a restart with a persistent store
      // keeps the task and loses its execution (a zombie: a snapshot, then a clean close).
      if (w.policy === 'a2a-zombie') w.server.toolAlive = false;
      if (w.timeline !== null)
        note(
          w,
          'server',
          upgrade
            ? 'restarts as a 2026-07-28 server (rolling upgrade): no sessions, every GET answered 405, Last-Event-ID ignored'
            : `restarts (${w.cfg.durable ? 'durable' : 'in-memory'} session store)`,
          upgrade
            ? { k: 'restart', durable: false, era: '2026-07-28' }
            : { k: 'restart', durable: w.cfg.durable },
        );
      if (wasUp) noticeDisconnect(w.client, w.cfg, w.port);
      return;
    }
    case 'SaturateApp':
      w.client.appSaturated = true;
      note(w, 'client', 'application thread saturated', { k: 'app', saturated: true });
      return;
    case 'ReleaseApp':
      w.client.appSaturated = false;
      note(w, 'client', 'application thread released', { k: 'app', saturated: false });
      pump(w, false);
      return;
    case 'Drain':
      pump(w, true);
      note(w, 'client', 'reader drains the socket', { k: 'drain' });
      return;
    case 'Advance':
      if (w.timeline !== null) note(w, 'network', `${c.ms} ms pass`, { k: 'advance', ms: c.ms });
      advance(w, c.ms);
      return;
    case 'Disconnect':
      note(w, 'network', c.silent ? 'connection drops silently' : 'connection drops', {
        k: 'drop',
        silent: c.silent,
      });
      disconnectNetwork(w, c.silent);
      return;
    case 'Reconnect':
      note(w, 'client', 'reconnects', { k: 'reconnect' });
      // The client abandons an open stream: for the proof it had pending, a drop.
      if (w.net.up) {
        w.truth.drops.push(w.clock.now);
        w.truth.noticedDrops.push(w.clock.now);
      }
      reconnect(w.client, w.cfg, w.port);
      return;
  }
}

/**
 * The epilogue of every run: the application is released, the tool finishes (at its pace), and
 * time passes until the client has the result or has surfaced an error, or nothing more can
 * happen. No fault is injected here, so it cannot break a condition of validity.
 */
export function quiesce(w: World): void {
  w.command = -1;
  if (w.client.appSaturated) applyCommand(w, { kind: 'ReleaseApp' });
  const wait = Math.max(w.cfg.K, w.cfg.T, w.cfg.P, w.cfg.R) + 1;
  const rounds = w.cfg.N + 8;
  for (let i = 0; i < rounds && w.client.done === null; i++) {
    if (w.server.toolAlive && w.server.toolEvents < w.cfg.N) emitTool(w);
    else advance(w, wait);
  }
  if (w.client.done === null) advance(w, wait);
  // A call left pending after the stream stopped ends only when the client's own timer fires.
  const req = w.client.requestTimeoutAt;
  if (req !== null) advance(w, Math.max(0, req - w.clock.now));
}
