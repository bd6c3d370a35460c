/**
 * Two instances of the 2.x server behind a round-robin front (no stickiness), asserted cell by
 * cell: with a store per instance a resume that lands on the other instance is refused (404);
 * with the shared Redis store it is honored (the other instance adopts the session and follows
 * the stream the first one writes), an instance restart during a call ends in band, and the
 * replay window stays closed on the real store.
 */
import { afterAll, describe, expect, test } from 'vitest';
import { restartDuringCall } from '../../src/conformance/scenarios/index.js';
import {
  MultiInstanceAdapter,
  stopHarnessRedis,
} from '../../src/conformance/adapters/multi-instance.js';
import { runCell, type JudgedCell } from '../../src/conformance/rows/matrix.js';
import { MULTI_INSTANCE_SCENARIOS } from '../../src/conformance/rows/multi-rows.js';
import { redisUrl } from '../support/redis.js';

const URL = redisUrl();
afterAll(() => stopHarnessRedis());

const show = (c: JudgedCell) =>
  `${c.implementation} × ${c.scenario}: ${c.verdict} (${c.observed})${c.reason ? ` [${c.reason}]` : ''}`;

const EXPECTED: Record<'memory' | 'redis', Record<string, string>> = {
  memory: {
    'within-window': 'rejected',
    'restart-during-call': 'rejected',
    'slow-store-replay': 'rejected',
    'slow-store-replay@0ms': 'rejected',
  },
  redis: {
    'within-window': 'honored',
    'restart-during-call': 'honored',
    'slow-store-replay': 'honored',
    'slow-store-replay@0ms': 'honored',
  },
};

describe.skipIf(!URL).each(['memory', 'redis'] as const)('server-v2 ×2 + %s', (kind) => {
  test.each(MULTI_INSTANCE_SCENARIOS.map((s) => [s.name, s] as const))('%s', async (name, s) => {
    let adapter: MultiInstanceAdapter | undefined;
    const cell = await runCell(
      { name: `${kind} ×2`, make: () => (adapter = new MultiInstanceAdapter(kind, URL)) },
      s,
    );
    console.log(show(cell), adapter?.routed.join(''));
    expect(cell.verdict, show(cell)).toBe(EXPECTED[kind][name]);
  });
});

test.skipIf(!URL)(
  'kill: without the writer liveness check, a restart during a call is silent loss',
  async () => {
    const cell = await runCell(
      { name: 'redis ×2, no liveness', make: () => new MultiInstanceAdapter('redis', URL, false) },
      restartDuringCall,
    );
    expect(cell.verdict, show(cell)).toBe('silent loss');
  },
);

test.skipIf(!URL)(
  'the front sends each request to the next instance: the resume lands on the other one',
  async () => {
    let adapter: MultiInstanceAdapter | undefined;
    await runCell(
      { name: 'redis ×2', make: () => (adapter = new MultiInstanceAdapter('redis', URL)) },
      MULTI_INSTANCE_SCENARIOS[0]!,
    );
    // initialize A, notifications/initialized B (adopts), tools/call A, resume GET B
    expect(adapter!.routed.slice(0, 4)).toEqual(['A', 'B', 'A', 'B']);
  },
);
