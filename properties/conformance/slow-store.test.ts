/**
 * `slow-store-replay`: the event store behind a delay (a networked store's round trips), with
 * live events emitted while the replay runs. First the wrapper itself (it really delays, and a
 * replay carries only what the store held when it read); then the measurement: the scenario
 * many times at several delays against the SDK 1.x and 2.x servers with the
 * ContinuityEventStore, and against the SDK 1.x client bare and guarded, counting the runs
 * that lost messages.
 *
 * The measurement runs `MCPR_SLOW_STORE_RUNS` times per delay and row (default 4, so that
 * `npm test` stays fast); the numbers in the report came from
 * `MCPR_SLOW_STORE_RUNS=30 npx vitest run properties/conformance/slow-store.test.ts`.
 */
import { performance } from 'node:perf_hooks';
import { describe, expect, test } from 'vitest';
import {
  CLIENT_IMPLEMENTATIONS,
  clientSlowStoreReplay,
  runClientCell,
} from '../../src/conformance/rows/client-rows.js';
import { SERVER_IMPLEMENTATIONS } from '../../src/conformance/rows/implementations.js';
import { runCell, type JudgedCell } from '../../src/conformance/rows/matrix.js';
import { slowStoreReplayScenario } from '../../src/conformance/scenarios/index.js';
import { DelayedEventStore } from '../../src/conformance/stores.js';
import { keyOf } from '../../src/conformance/scenarios/truth.js';
import {
  ContinuityEventStore,
  ReplayFence,
  type EventStoreLike,
  type StoredMessage,
} from '../../src/index.js';

const msg = (i: number): StoredMessage => ({ jsonrpc: '2.0', method: 'm', params: { i } });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Timers may fire up to a millisecond early as measured by `performance.now()`. */
const SLACK = 1;

describe('DelayedEventStore', () => {
  test('storeEvent stores only after the delay', async () => {
    const inner = new ContinuityEventStore({ epoch: 'e1' });
    const store = new DelayedEventStore(inner, 40);
    const t0 = performance.now();
    const pending = store.storeEvent('A', msg(1));
    await sleep(20);
    // Halfway through the trip the event has not landed: the inner store is still empty.
    expect(await inner.storeEvent('A', msg(0))).toBe('e1-s1-1');
    expect(await pending).toBe('e1-s1-2');
    expect(performance.now() - t0).toBeGreaterThanOrEqual(40 - SLACK);
  });

  test('a replay reads after one delay and sends that snapshot after another', async () => {
    const inner = new ContinuityEventStore({ epoch: 'e1' });
    const store = new DelayedEventStore(inner, 40);
    for (let i = 1; i <= 3; i++) await inner.storeEvent('A', msg(i));
    const sent: { id: string; at: number }[] = [];
    const t0 = performance.now();
    const replay = store.replayEventsAfter('e1-s1-2', {
      send: async (id) => void sent.push({ id, at: performance.now() - t0 }),
    });
    await sleep(20);
    await inner.storeEvent('A', msg(4)); // before the read: in the replay
    await sleep(40);
    await inner.storeEvent('A', msg(5)); // after the read, before the answer: not in it
    expect(sent).toEqual([]);
    expect(await replay).toBe('A');
    expect(sent.map((s) => s.id)).toEqual(['', 'e1-s1-3', 'e1-s1-4']);
    expect(sent[0]!.at).toBeGreaterThanOrEqual(80 - 2 * SLACK);
  });

  test('onReplayRead is awaited between the read and the answer: what it stores is not replayed', async () => {
    const inner = new ContinuityEventStore({ epoch: 'e1' });
    for (let i = 1; i <= 3; i++) await inner.storeEvent('A', msg(i));
    const sent: string[] = [];
    let stored = '';
    const store = new DelayedEventStore(inner, 5, async (cursor) => {
      expect(cursor).toBe('e1-s1-2');
      expect(sent).toEqual([]); // the answer has not come back yet
      stored = await inner.storeEvent('A', msg(4)); // inside the window, however late
    });
    const replay = store.replayEventsAfter('e1-s1-2', { send: async (id) => void sent.push(id) });
    expect(await replay).toBe('A');
    expect(stored).toBe('e1-s1-4');
    // The acknowledgment (no id), then 3: the read came before the hook's write.
    expect(sent).toEqual(['', 'e1-s1-3']);
  });

  test('a refusal comes back after both legs; getStreamIdForEventId only when the inner has it', async () => {
    const plain = new DelayedEventStore(new ContinuityEventStore({ epoch: 'e1' }), 30);
    expect(plain.getStreamIdForEventId).toBeUndefined();
    let t0 = performance.now();
    await expect(plain.replayEventsAfter('e1-s9-1', { send: async () => {} })).rejects.toThrow(
      /not retained/,
    );
    expect(performance.now() - t0).toBeGreaterThanOrEqual(60 - 2 * SLACK);
    const inner = new ContinuityEventStore({ epoch: 'e2', precheck: true });
    const id = await inner.storeEvent('A', msg(1));
    const prechecked = new DelayedEventStore(inner, 30);
    t0 = performance.now();
    expect(await prechecked.getStreamIdForEventId?.(id)).toBe('A');
    expect(performance.now() - t0).toBeGreaterThanOrEqual(30 - SLACK);
    expect(() => new DelayedEventStore(inner, -1)).toThrow(/delayMs/);
  });
});

/** Runs per delay and row: `MCPR_SLOW_STORE_RUNS`, default 4. */
describe('ReplayFence', () => {
  /**
   * A transport's resume, as the SDK does it: await the replay, then register the stream
   * synchronously; a live write meanwhile is written only if it finds the registration. The
   * write starts in the window itself, not after a guessed sleep: once the replay has read the
   * store and while its answer is held back (under load a 15 ms sleep once ended after a 20 ms
   * store's answer, and the bare store's write was not lost). The answer is let go when the
   * write has returned, or has waited 50 ms (a fenced write waits for the replay).
   */
  async function resumeWithLiveWrite(
    inner: EventStoreLike,
    cursor: string,
    wrap: (store: EventStoreLike) => EventStoreLike = (store) => store,
  ) {
    let readDone!: () => void;
    const read = new Promise<void>((r) => (readDone = r));
    let letGo!: () => void;
    const answer = new Promise<void>((r) => (letGo = r));
    const store = wrap(
      new DelayedEventStore(inner, 0, async () => {
        readDone();
        await answer;
      }),
    );
    const written: string[] = [];
    let registered = false;
    const replay = store
      .replayEventsAfter(cursor, { send: async (id) => void written.push(`replay ${id}`) })
      .then(() => (registered = true));
    await read; // the replay has read the store; its answer has not come back
    const write = store.storeEvent('A', msg(4)).then((id) => {
      if (registered) written.push(`live ${id}`);
    });
    await Promise.race([write, sleep(50)]);
    letGo();
    await Promise.all([replay, write]);
    return written;
  }

  async function storeWithThree(): Promise<{ inner: ContinuityEventStore; cursor: string }> {
    const inner = new ContinuityEventStore({ epoch: 'e1' });
    let cursor = '';
    for (let i = 1; i <= 3; i++) cursor = await inner.storeEvent('A', msg(i));
    return { inner, cursor };
  }

  test('without a fence a write inside the window is lost; with one it is written live', async () => {
    const bare = await storeWithThree();
    const lost = await resumeWithLiveWrite(bare.inner, bare.cursor);
    expect(lost.filter((w) => w.endsWith('-4'))).toEqual([]);
    const fenced = await storeWithThree();
    const kept = await resumeWithLiveWrite(
      fenced.inner,
      fenced.cursor,
      (store) => new ReplayFence(store),
    );
    expect(kept.filter((w) => w.endsWith('-4'))).toHaveLength(1);
  });

  test('a replay waits for the writes in flight, so they are in what it reads', async () => {
    const { inner, cursor } = await storeWithThree();
    const store = new ReplayFence(new DelayedEventStore(inner, 20));
    const write = store.storeEvent('A', msg(4));
    const replayed: string[] = [];
    // (The store's in-band acknowledgment comes first, without an id.)
    await store.replayEventsAfter(cursor, { send: async (id) => void (id && replayed.push(id)) });
    expect(replayed).toEqual([await write]);
  });

  test('it passes getStreamIdForEventId through only when the inner store has it', () => {
    expect(new ReplayFence(new ContinuityEventStore()).getStreamIdForEventId).toBeUndefined();
    const pre = new ContinuityEventStore({ precheck: true });
    expect(new ReplayFence(pre).getStreamIdForEventId).toBeTypeOf('function');
  });
});

const RUNS = Math.max(1, Number(process.env.MCPR_SLOW_STORE_RUNS ?? 4) || 4);

/**
 * The silence that ends a read of the resumed stream (the matrix's default is 400 ms). Under
 * load (20 on 2 cores) the fenced store's stream once went 400 ms between two events: the read
 * stopped, the messages after it counted as lost, and the oracle, rightly seeing contiguous
 * ids, disagreed. A loss here is of a message that never comes, so a longer bound changes no
 * verdict, only how long a lossy run waits.
 */
const SILENCE_MS = 2_000;
const DELAYS = [0, 1, 5, 25] as const;

interface Tally {
  runs: number;
  gaps: number;
  lost: number;
  /** How often each message was lost (`A#4`, `A#result`). */
  which: Record<string, number>;
  verdicts: Record<string, number>;
}

function count(cells: JudgedCell[], lostOf: (c: JudgedCell) => string[]): Tally {
  const t: Tally = { runs: cells.length, gaps: 0, lost: 0, which: {}, verdicts: {} };
  for (const c of cells) {
    const lost = lostOf(c);
    if (lost.length > 0) t.gaps += 1;
    t.lost += lost.length;
    for (const k of lost) t.which[k] = (t.which[k] ?? 0) + 1;
    t.verdicts[c.verdict] = (t.verdicts[c.verdict] ?? 0) + 1;
  }
  return t;
}

const line = (row: string, ms: number, t: Tally) =>
  `${row.padEnd(34)} ${String(ms).padStart(2)} ms: ${t.gaps}/${t.runs} runs with a gap, ` +
  `${t.lost} messages lost ${JSON.stringify(t.which)}, verdicts ${JSON.stringify(t.verdicts)}`;

describe('slow-store-replay, measured', () => {
  // The fenced reference rows, then the same store without its ReplayFence.
  const servers = [
    'sdk-v1+continuity',
    'server-v2+continuity',
    'sdk-v1+nofence',
    'server-v2+nofence',
  ].map((n) => SERVER_IMPLEMENTATIONS.find((e) => e.name === n)!);

  test.each(servers.map((e) => [e.name, e] as const))(
    '%s: the verdict is the ground truth; no loss without a delay',
    async (name, entry) => {
      const report: string[] = [];
      for (const ms of DELAYS) {
        const cells: JudgedCell[] = [];
        for (let i = 0; i < RUNS; i++) {
          const cell = await runCell(entry, slowStoreReplayScenario(ms, 'timed'), {
            idleMs: SILENCE_MS,
          });
          const show = `${name} × slow-store-replay (${ms} ms): ${cell.verdict} (${cell.observed})`;
          const truth = cell.truth;
          expect(truth, show).toBeDefined();
          const clean =
            truth!.lost.length === 0 &&
            truth!.duplicated.length === 0 &&
            !truth!.reordered &&
            truth!.foreign.length === 0;
          expect(['honored', 'silent loss'], show).toContain(cell.verdict);
          expect(cell.verdict === 'honored', show).toBe(clean);
          // The cell names what was lost (`A#4`, `A:result`).
          const named = truth!.lost.map((d) =>
            d.index === 'result' ? `${d.tag}:result` : keyOf(d),
          );
          if (named.length > 0) expect(cell.observed, show).toContain(`lost ${named.join(',')}`);
          // The reference store's ids make every loss visible: the oracle sees the gap.
          expect(cell.oracle?.agrees, `${show} ${cell.oracle?.note ?? ''}`).toBe(true);
          cells.push(cell);
        }
        const t = count(cells, (c) => c.truth!.lost.map(keyOf));
        // An in-process store reads and returns within one turn of the event loop: no window;
        // behind a ReplayFence there is none at any delay.
        if (ms === 0 || !name.endsWith('nofence')) expect(t.gaps, line(name, ms, t)).toBe(0);
        // Without the fence the window is a round trip wide: at 25 ms the unfenced store must
        // lose a live write that lands in it (the kill). The timed runs above measure how often
        // the timer lands it there; on a loaded machine (load 15-20) it missed in every run, so
        // the kill uses the scenario's own placement, by events (held-window.test.ts).
        if (ms >= 25 && name.endsWith('nofence')) {
          const held = await runCell(entry, slowStoreReplayScenario(ms), {
            idleMs: SILENCE_MS,
          });
          expect(held.verdict, `${name} × held window (${ms} ms): ${held.observed}`).toBe(
            'silent loss',
          );
        }
        report.push(line(name, ms, t));
      }
      console.log(report.join('\n'));
    },
    600_000,
  );

  const clients = ['sdk-client-v1 → continuity', 'sdk-client-v1+guard → continuity'].map((n) =>
    CLIENT_IMPLEMENTATIONS.find((e) => e.name === n)!,
  );

  test.each(clients.map((e) => [e.name, e] as const))(
    '%s: a guarded client is told of every gap',
    async (name, entry) => {
      const report: string[] = [];
      for (const ms of DELAYS) {
        const cells: JudgedCell[] = [];
        const gapOf = new Map<JudgedCell, string[]>();
        for (let i = 0; i < RUNS; i++) {
          const cell = await runClientCell(entry, clientSlowStoreReplay(ms, 'timed'));
          const show = `${name} × slow-store-replay (${ms} ms): ${cell.verdict} (${cell.observed})`;
          expect(['honored', 'rejected', 'silent loss'], show).toContain(cell.verdict);
          if (entry.guard) expect(cell.verdict, show).not.toBe('silent loss');
          else expect(cell.verdict, show).not.toBe('rejected');
          // What the application missed: the lost messages (bare), or the gap it was told of.
          const lost = /lost (\S+?), /.exec(cell.observed)?.[1]?.split(',') ?? ['(no result)'];
          const gap =
            cell.verdict === 'honored'
              ? []
              : cell.verdict === 'rejected'
                ? ['(StreamResumptionError)']
                : lost;
          gapOf.set(cell, gap);
          expect(cell.oracle?.agrees, `${show} ${cell.oracle?.note ?? ''}`).toBe(true);
          cells.push(cell);
        }
        const t = count(cells, (c) => gapOf.get(c)!);
        if (ms === 0) expect(t.gaps, line(name, ms, t)).toBe(0);
        report.push(line(name, ms, t));
      }
      console.log(report.join('\n'));
    },
    600_000,
  );

  // The matrix cell holds the store's replay after its read instead of aiming a timer at the
  // window: message 4 lands in it at any delay, even 1 ms, where the timed placement misses.
  test.each(clients.map((e) => [e.name, e] as const))(
    '%s: the paused placement hits the window at 1 ms too',
    async (name, entry) => {
      const cell = await runClientCell(entry, clientSlowStoreReplay(1));
      const show = `${name} × slow-store-replay (1 ms, paused): ${cell.verdict} (${cell.observed})`;
      expect(cell.verdict, show).toBe(entry.guard ? 'rejected' : 'silent loss');
      if (!entry.guard) expect(cell.observed, show).toContain('lost A#4,');
      expect(cell.oracle?.agrees, `${show} ${cell.oracle?.note ?? ''}`).toBe(true);
      expect(() => clientSlowStoreReplay(0)).toThrow(/no window/);
    },
  );
});
