/**
 * The runtime's differential property: hostile server behaviour at the HTTP level (./scenario.ts)
 * against the real SDK 1.x and 2.x client transports and a direct client, each wrapped by
 * `continuityGuard`, on loopback. Claims (./run-guarded.ts): NoSilentGap,
 * GuardAgreesWithOracle (the guard's own trace, judged by `checkTrace`), RetryInRange and
 * StateFreed (direct client: it sees the retry values and ends every body itself).
 */
import { test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { announceSeed, runs } from '../support/seed.js';
import { runGuarded, type ClientKind } from './run-guarded.js';
import { scenario } from './scenario.js';

const seed = announceSeed('properties/runtime/differential.test.ts');

const RUNS: Record<ClientKind, number> = { v1: 8, v2: 8, direct: 30 };

describe.each(Object.keys(RUNS) as ClientKind[])('the guard around the %s client', (kind) => {
  test.prop([scenario], { seed, numRuns: runs(RUNS[kind]), endOnFailure: true })(
    'NoSilentGap, GuardAgreesWithOracle, RetryInRange, StateFreed',
    async (s) => {
      const { broken } = await runGuarded(kind, s);
      expect(broken).toEqual([]);
    },
  );
});
