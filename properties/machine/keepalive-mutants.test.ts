/**
 * `keepalive-is-proof` and `unproven-forever` are one fault each (issue 39, T3). The old
 * `keepalive-is-proof` moved a keepalive to `delayed` on a machine without the budget of
 * `delayed`, and the world killed it by the missing budget (it waited forever), the fault its
 * name did not describe. Now:
 * - `keepalive-is-proof` takes a keepalive for a covering floor and keeps the budget. What a
 *   keepalive changes is rule 7.2: a disconnect while unproven fails the reconnect, and the
 *   mutant, believing itself delayed, waits on. The oracle says so of its trace
 *   (`unsafe-accept`). The world's claims, which judge what reached the application, cannot see
 *   it (the budget still ends every episode), so it is not in the world's client zoo.
 * - `unproven-forever` drops the budget of a reconnect without a floor and still reads a
 *   keepalive as nothing: the seed's third variant (200, keepalives, never an event) keeps it
 *   waiting forever, which the world's NoSilentPartialResult kills (properties/world/mutants.test.ts).
 * Each is shown here to fail what its name says and to agree with the model on the other fault.
 */
import { describe, expect, test } from 'vitest';
import { clientMachine, type ClientMachine } from '../../model/client-machine.js';
import { MACHINE_MUTANTS } from '../../model/mutants/machine-mutants.js';
import type { Observation } from '../../model/observations.js';
import { runObservations, stateOf } from '../../model/run.js';
import { checkTrace } from '../../src/trace/check.js';

const mutant = (name: string): ClientMachine =>
  MACHINE_MUTANTS.find((m) => m.name === name)!.machine;

const EVENTS_THEN_RESUME: Observation[] = [
  { type: 'OPEN', status: 200 },
  { type: 'EVENT', id: 1 },
  { type: 'EVENT', id: 2 },
  { type: 'IDLE_TIMEOUT' },
  { type: 'RECONNECT', cursor: 2 },
  { type: 'RESPONSE', status: 200 },
];

/** A 200 without a floor, a keepalive, then the connection breaks (rule 7.2). */
const KEEPALIVE_THEN_DISCONNECT: Observation[] = [
  ...EVENTS_THEN_RESUME,
  { type: 'KEEPALIVE' },
  { type: 'DISCONNECT' },
];

/** A 200 without a floor, keepalives, and the proof budget runs out (rule 7.4). */
const KEEPALIVES_THEN_BUDGET: Observation[] = [
  ...EVENTS_THEN_RESUME,
  { type: 'KEEPALIVE' },
  { type: 'KEEPALIVE' },
  { type: 'PROOF_TIMEOUT' },
];

const outcome = (obs: Observation[], machine: ClientMachine) => {
  const snap = runObservations(obs, machine);
  return { state: stateOf(snap), outcome: snap.context.outcome, code: snap.context.reason?.code };
};

describe('keepalive-is-proof: a keepalive proves nothing', () => {
  test('the model fails a reconnect that breaks after a keepalive (rule 7.2, unproven)', () => {
    expect(outcome(KEEPALIVE_THEN_DISCONNECT, clientMachine)).toMatchObject({
      state: 'resumptionFailed',
      outcome: 'resumption-failed',
      code: 'unproven',
    });
  });

  test('the mutant takes the keepalive for a floor: delayed, and the break does not fail it', () => {
    const m = mutant('keepalive-is-proof');
    const after = runObservations(KEEPALIVE_THEN_DISCONNECT.slice(0, -1), m);
    expect([after.context.outcome, after.context.reason?.code]).toEqual([
      'delayed',
      'floor-covers',
    ]);
    expect(outcome(KEEPALIVE_THEN_DISCONNECT, m).outcome).toBe('delayed');
  });

  test('the oracle calls the mutant’s wait unsafe-accept (exit 1)', async () => {
    const lines = [
      '{"type":"open","status":200}',
      '{"type":"event","id":1}',
      '{"type":"event","id":2}',
      '{"type":"idle-timeout"}',
      '{"type":"reconnect","cursor":2}',
      '{"type":"response","status":200}',
      '{"type":"keepalive"}',
      '{"type":"decision","outcome":"delayed"}',
      '{"type":"disconnect"}',
    ];
    const report = await checkTrace(lines);
    expect(report.reconnects[0]).toMatchObject({
      expected: 'resumption-failed',
      code: 'unproven',
      actual: 'delayed',
      verdict: 'unsafe-accept',
    });
  });

  test('one fault: the budget still bounds its wait, as the model’s', () => {
    expect(outcome(KEEPALIVES_THEN_BUDGET, mutant('keepalive-is-proof'))).toEqual(
      outcome(KEEPALIVES_THEN_BUDGET, clientMachine),
    );
  });
});

describe('unproven-forever: the proof budget bounds a reconnect without a floor', () => {
  test('the model fails an empty 200 when the budget runs out (rule 7.4)', () => {
    expect(outcome(KEEPALIVES_THEN_BUDGET, clientMachine)).toMatchObject({
      outcome: 'resumption-failed',
      code: 'unproven',
    });
  });

  test('the mutant is still waiting, and polls on after the server ends the stream', () => {
    const m = mutant('unproven-forever');
    expect(outcome(KEEPALIVES_THEN_BUDGET, m)).toMatchObject({
      state: 'awaitingProof',
      outcome: null,
    });
    const polled: Observation[] = [
      ...EVENTS_THEN_RESUME,
      { type: 'END' },
      { type: 'PROOF_TIMEOUT' },
    ];
    expect(outcome(polled, m).state).toBe('polling');
    expect(outcome(polled, clientMachine).outcome).toBe('resumption-failed');
  });

  test('one fault: a keepalive still proves nothing to it', () => {
    expect(outcome(KEEPALIVE_THEN_DISCONNECT, mutant('unproven-forever'))).toEqual(
      outcome(KEEPALIVE_THEN_DISCONNECT, clientMachine),
    );
  });
});
