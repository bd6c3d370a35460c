/**
 * NoWaitAfterFailure, one world at a time: the model's client ends the application's call in the
 * instant its machine decides a failure, with an error that carries the outcome; the
 * `waits-for-request-timeout` mutant decides the same, but its call rejects only when its own
 * request timer runs out, and the claim breaks on it. Then the claim as a property over generated
 * worlds (any server), with the model's client, and the mutant killed by the same search.
 */
import { describe, expect, test } from 'vitest';
import { claimNamed } from '../../model/claims/index.js';
import { SETTLE_EPSILON_MS } from '../../model/claims/no-wait-after-failure.js';
import { killMutant, mutantEntries } from '../../model/mutants/kill-table.js';
import { clientState, REQUEST_TIMEOUT_MS } from '../../model/world/client.js';
import type { WorldCommand } from '../../model/world/commands.js';
import { DEFAULT_CONFIG, type WorldConfig } from '../../model/world/config.js';
import { newStats, runWorld } from '../../model/world/property.js';
import { checkWorlds, runs, SEED } from './helpers.js';

const emit: WorldCommand = { kind: 'Emit', stream: 'tool' };
const wait = (ms: number): WorldCommand => ({ kind: 'Advance', ms });
const cfg = (over: Partial<WorldConfig>): WorldConfig => ({ ...DEFAULT_CONFIG, I: 0, ...over });
const claim = claimNamed('NoWaitAfterFailure');
const WAITS = { behaviour: { waitsForRequestTimeout: true } };

// An in-memory store lost in a restart (404: session-lost), and a server answering from its
// head after an eviction (a skip: resumption-failed).
const LOST = { c: cfg({ durable: false }), cmds: [emit, { kind: 'Restart' }, wait(5_000)] };
const SKIP = {
  c: cfg({ policy: 'head', D: 1 }),
  cmds: [emit, emit, emit, { kind: 'Disconnect', silent: false }, wait(5_000)],
};

describe('NoWaitAfterFailure', () => {
  test.each([
    ['session-lost (404 after a restart)', LOST, 'sessionLost', 'session-lost'],
    ['resumption-failed (a skip from the head)', SKIP, 'resumptionFailed', 'resumption-failed'],
  ] as const)(
    "%s: the model's client ends the call at the decision, with the outcome",
    (_, { c, cmds }, state, outcome) => {
      const w = runWorld(c, cmds as WorldCommand[]);
      expect(clientState(w.client)).toBe(state);
      expect(w.client.decidedAt).not.toBeNull();
      expect(w.client.call).toEqual({
        at: w.client.decidedAt,
        by: 'decision',
        outcome,
        error: w.client.error,
      });
      expect(w.client.requestTimeoutAt).toBeNull();
      expect(claim.check(w)).toMatchObject({ applicable: true, ok: true });
    },
  );

  test.each([
    ['session-lost', LOST],
    ['resumption-failed', SKIP],
  ] as const)(
    'the waits-for-request-timeout mutant decides %s the same, and the claim breaks on its call',
    (_, { c, cmds }) => {
      const model = runWorld(c, cmds as WorldCommand[]);
      const w = runWorld(c, cmds as WorldCommand[], WAITS);
      // The same decision at the same moment: only what happens to the call differs.
      expect(clientState(w.client)).toBe(clientState(model.client));
      expect(w.client.decidedAt).toBe(model.client.decidedAt);
      expect(w.client.call).toEqual({
        at: w.client.decidedAt! + REQUEST_TIMEOUT_MS,
        by: 'request-timeout',
        outcome: null,
        error: 'Request timed out',
      });
      const v = claim.check(w);
      expect(v.ok).toBe(false);
      expect(v.why).toMatch(/waited for the client's own request timer/);
    },
  );

  test('a call ended late by the decision itself breaks the claim past ε, and holds within it', () => {
    const w = runWorld(LOST.c, LOST.cmds as WorldCommand[]);
    const at = w.client.decidedAt!;
    w.client.call = { ...w.client.call!, at: at + SETTLE_EPSILON_MS };
    expect(claim.check(w).ok).toBe(true);
    w.client.call = { ...w.client.call, at: at + SETTLE_EPSILON_MS + 1 };
    expect(claim.check(w).ok).toBe(false);
    w.client.call = { ...w.client.call, at, outcome: 'resumption-failed' };
    expect(claim.check(w).why).toMatch(/carries resumption-failed/);
  });

  test('a world with no failure decided is not judged', () => {
    const w = runWorld(cfg({}), [emit, emit]);
    expect(w.client.done).toBe('complete');
    expect(w.client.call?.by).toBe('result');
    expect(claim.check(w).applicable).toBe(false);
  });

  test("holds for the model's client in generated worlds, any server (and applies)", () => {
    const stats = newStats();
    checkWorlds({
      name: 'NoWaitAfterFailure',
      kind: 'any',
      claims: [claim],
      numRuns: runs(2_000),
      stats,
    });
    expect(stats.applied['NoWaitAfterFailure'] ?? 0).toBeGreaterThan(runs(2_000) * 0.2);
  });

  test('the same search kills waits-for-request-timeout, by this claim', () => {
    const entry = mutantEntries().find((e) => e.name === 'waits-for-request-timeout')!;
    const row = killMutant(entry, runs(1_000), SEED);
    console.log(
      `kill waits-for-request-timeout: ${row.claim} after ${row.runs} run(s); seed ${SEED}`,
    );
    expect(row.claim).toBe('NoWaitAfterFailure');
  });
});
