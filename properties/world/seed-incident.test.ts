/**
 * The seed's incident as fixed scenarios, each run against a naive client that trusts any 200
 * and against the model's client: the naive client loses data silently (or waits forever), the
 * model's client escalates.
 */
import { describe, expect, test } from 'vitest';
import { noSilentPartialResult, noUnprovenAcceptance } from '../../model/claims/index.js';
import { MACHINE_MUTANTS } from '../../model/mutants/machine-mutants.js';
import { clientState } from '../../model/world/client.js';
import { runWorld } from '../../model/world/property.js';
import { SEED_SCENARIOS } from '../../model/world/scenarios.js';

const naive = { machine: MACHINE_MUTANTS.find((m) => m.name === 'accept-any-200')!.machine };
const scenario = (name: string) => SEED_SCENARIOS.find((s) => s.name === name)!;

describe("the seed's incident", () => {
  test('7-minute stall: cursor 41, ring 67..130, 200 from the head', () => {
    const s = scenario('seven-minute-stall');
    const model = runWorld(s.cfg, s.commands);
    const r = model.truth.reconnects[0]!;
    expect([r.cursor, r.floor, r.head, r.status]).toEqual([41, 67, 130, 200]);
    expect(model.truth.idle[0]!.t).toBe(418_000); // ~7 minutes
    expect(model.truth.idle[0]!.connectionUp).toBe(true); // backpressure, not loss
    expect(clientState(model.client)).toBe('resumptionFailed');
    expect(model.client.error).toMatch(/expected event id 42, got 130/);
    expect(noUnprovenAcceptance.check(model).ok).toBe(true);
    expect(noSilentPartialResult.check(model).ok).toBe(true);

    const n = runWorld(s.cfg, s.commands, naive);
    expect(n.client.done).toBe('complete');
    expect(n.client.delivered.map((e) => e.id).slice(40, 43)).toEqual([41, 130, 131]);
    expect(noUnprovenAcceptance.check(n).why).toMatch(/events 42\.\.129 silently skipped/);
    expect(noSilentPartialResult.check(n).ok).toBe(false);
  });

  test('404 after restart: both clients report the session lost (the seed: correctly)', () => {
    const s = scenario('restart-404');
    for (const subject of [{}, naive]) {
      const w = runWorld(s.cfg, s.commands, subject);
      expect(clientState(w.client)).toBe('sessionLost');
      expect(noSilentPartialResult.check(w).ok).toBe(true);
    }
  });

  test('200-empty re-creation: the naive client waits forever, the model escalates', () => {
    const s = scenario('restart-empty-200');
    const model = runWorld(s.cfg, s.commands);
    expect(clientState(model.client)).toBe('resumptionFailed');
    expect(model.client.error).toMatch(/a 200 proves nothing/);
    const n = runWorld(s.cfg, s.commands, naive);
    expect(clientState(n.client)).toBe('delayed');
    expect(n.client.done).toBeNull();
    expect(noSilentPartialResult.check(n).why).toMatch(/no result and no error/);
  });
});
