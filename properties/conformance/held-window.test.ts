/**
 * `slow-store-replay` and `finished-while-away` place what they test by events, not by timers,
 * so a loaded machine cannot move their cells (`npm run conformance:docs` regenerated on a busy
 * machine flipped both).
 *
 * - slow-store-replay: the store holds its replay after the read until message 4 was stored (or,
 *   behind a ReplayFence, handed to the fence). Under a stalled event loop (40 ms of busy
 *   work, 10 ms free, over and over, in this process) the held placement hits the window in
 *   every run, where the old timer placement (`'timed'`) misses it.
 * - finished-while-away: the result is released in a later millisecond than message n. With a
 *   clock that ticks every 20 ms and random id suffixes that only decrease (so that two ids of
 *   one millisecond always sort newest first), the SDK example store replays a result stored in
 *   the same millisecond as message n before it: the old placement loses n every run, the new
 *   one never.
 */
import { afterEach, describe, expect, test, vi } from 'vitest';
import { SERVER_IMPLEMENTATIONS } from '../../src/conformance/rows/implementations.js';
import { runCell, type ImplementationEntry } from '../../src/conformance/rows/matrix.js';
import {
  finishedWhileAway,
  slowStoreReplayScenario,
  type Scenario,
} from '../../src/conformance/scenarios/index.js';
import {
  cutAfterThree,
  judge,
  resume,
  has,
  SETTLE_MS,
} from '../../src/conformance/scenarios/steps.js';
import { owed } from '../../src/conformance/scenarios/truth.js';
import { nextMillisecond, runCount } from '../../src/conformance/tool.js';
import type { StartOptions } from '../../src/conformance/types.js';

const row = (name: string) => SERVER_IMPLEMENTATIONS.find((e) => e.name === name)!;

/** Runs `body` while this process's event loop is blocked 40 ms in about every 50. */
async function stalled<T>(body: () => Promise<T>): Promise<T> {
  const hog = setInterval(() => {
    const end = performance.now() + 40;
    while (performance.now() < end);
  }, 10);
  try {
    return await body();
  } finally {
    clearInterval(hog);
  }
}

/** `entry`, recording whether its store held a replay and was handed a write meanwhile. */
function watched(entry: ImplementationEntry) {
  const seen = { held: 0, writesWhileHeld: 0 };
  const wrapped: ImplementationEntry = {
    name: entry.name,
    make() {
      const adapter = entry.make();
      const start = adapter.start.bind(adapter);
      adapter.start = (options: StartOptions) => {
        let holding = false;
        const { onReplayRead, onFencedWrite } = options;
        return start({
          ...options,
          ...(onReplayRead
            ? {
                onReplayRead: async (id: string) => {
                  seen.held += 1;
                  holding = true;
                  try {
                    await onReplayRead(id);
                  } finally {
                    holding = false;
                  }
                },
              }
            : {}),
          ...(onFencedWrite
            ? {
                onFencedWrite: () => {
                  if (holding) seen.writesWhileHeld += 1;
                  onFencedWrite();
                },
              }
            : {}),
        });
      };
      return adapter;
    },
  };
  return { entry: wrapped, seen };
}

/** One run of the held slow-store-replay (25 ms) against row `name`, watched. */
async function heldRun(name: string, i: number) {
  const { entry, seen } = watched(row(name));
  // (The stall slows the in-process server and client alike; on a loaded machine its silences
  // passed the default 400 ms idle bound and a fenced, complete stream was cut short and read
  // as a loss. The bounds only end a wait: what arrives decides the verdict.)
  const cell = await runCell(entry, slowStoreReplayScenario(25), { idleMs: 2000, timeoutMs: 5000 });
  return { cell, seen, show: `${name} × held (${i}): ${cell.verdict} (${cell.observed})` };
}

describe('slow-store-replay under a stalled event loop', () => {
  // Without a fence message 4 is lost in every run, with the fence it arrives, handed to the
  // fence inside the held window (one write while the replay was held).
  test.each([
    ['sdk-v1+nofence', 'silent loss', 0],
    ['server-v2+nofence', 'silent loss', 0],
    ['sdk-v1+continuity', 'honored', 1],
    ['server-v2+continuity', 'honored', 1],
  ] as const)(
    '%s: the held placement says %s in every run',
    async (name, want, writesWhileHeld) => {
      await stalled(async () => {
        for (let i = 0; i < 3; i++) {
          const { cell, seen, show } = await heldRun(name, i);
          expect(cell.verdict, show).toBe(want);
          if (want === 'silent loss') expect(cell.observed, show).toMatch(/, lost A#4, /);
          expect(seen, show).toEqual({ held: 1, writesWhileHeld });
        }
      });
    },
    120_000,
  );

  test.each(['sdk-v1+nofence', 'server-v2+nofence'])(
    '%s: under the same stall, the timer placement misses the window',
    async (name) => {
      const timed = await stalled(async () => {
        const verdicts: string[] = [];
        // Up to 6 tries, stopping at the first miss: it is seen in the first try almost always
        // (7 of 7 when this was written), and 6 tries keep a lucky timer from failing the test.
        for (let i = 0; i < 6 && !verdicts.includes('honored'); i++) {
          verdicts.push((await runCell(row(name), slowStoreReplayScenario(25, 'timed'))).verdict);
        }
        return verdicts;
      });
      // The stall makes the timers fire in bursts: message 4 is released before the store
      // reads (it is in the replay), and the cell says honored for an unfenced store.
      console.log(`${name} × timed placement under the stall: ${timed.join(', ')}`);
      expect(timed, 'the stall no longer defeats the timer: make it harsher').toContain('honored');
    },
    120_000,
  );

  test('a store with no window to hold (no delay) answers without a held replay; nothing waits', async () => {
    const { entry, seen } = watched(row('server-v2+nofence'));
    const cell = await runCell(entry, slowStoreReplayScenario(0));
    expect(cell.verdict, cell.observed).toBe('honored');
    expect(seen.held).toBe(0);
  });
});

/** finished-while-away as it was: every hold released at once, the result right after n. */
const finishedWhileAwayOld: Scenario = {
  ...finishedWhileAway,
  async run(ctx) {
    const { A, n, client, f, cursor } = await cutAfterThree(ctx);
    await ctx.control.releaseTag(A);
    await ctx.control.waitEmitted(A, n, ctx.timeoutMs);
    await new Promise((res) => setTimeout(res, SETTLE_MS));
    const r = await resume(ctx, client, f, cursor, has(A, 'result'));
    return judge(r.rec, owed(A, 3, n), [A]);
  },
};

describe('finished-while-away and a clock of coarse milliseconds', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  /** `Date.now()` in 20 ms steps; `Math.random()` only decreasing. */
  function coarseClock() {
    const now = Date.now.bind(Date);
    vi.spyOn(Date, 'now').mockImplementation(() => Math.floor(now() / 20) * 20);
    let r = 0.9;
    vi.spyOn(Math, 'random').mockImplementation(() => (r -= 1e-6));
  }

  test.each(['sdk-v1+example', 'server-v2+example'])(
    '%s: the result stored in the same millisecond as message n is replayed first (old placement); a later millisecond keeps the order',
    async (name) => {
      coarseClock();
      for (let i = 0; i < 2; i++) {
        const old = await runCell(row(name), finishedWhileAwayOld);
        expect(old.verdict, old.observed).toBe('silent loss');
        expect(old.observed).toContain('lost A#6,');
        const now = await runCell(row(name), finishedWhileAway);
        expect(now.verdict, now.observed).toBe('honored');
      }
    },
    60_000,
  );

  test('nextMillisecond resolves only once the clock has passed the millisecond given', async () => {
    coarseClock();
    const since = Date.now();
    await nextMillisecond(since);
    expect(Date.now()).toBeGreaterThan(since);
    await nextMillisecond();
    expect(Date.now()).toBeGreaterThan(since + 20);
  });

  test('the tool with a gap stores each message in a millisecond of its own', async () => {
    coarseClock();
    const at: number[] = [];
    await runCount({ tag: 'A', n: 5, gapMs: 2 }, undefined, async () => void at.push(Date.now()), {
      beforeEmit: async () => {},
      emitted: () => {},
    });
    expect(new Set(at).size, JSON.stringify(at)).toBe(5);
  });
});
