/**
 * A decision's text says what the machine did, for mutants too: the naive client that accepts
 * event 130 after cursor 41 must not read "first event 42 is the cursor's successor", and a
 * keepalive taken for a floor must not read "declared replay floor ? covers cursor 0". The
 * playground and `explore --scenario` print these texts to students.
 */
import { describe, expect, test } from 'vitest';
import { MACHINE_MUTANTS } from '../../model/mutants/machine-mutants.js';
import { runObservations, stateOf } from '../../model/run.js';
import type { Observation } from '../../model/observations.js';

const mutant = (name: string) => MACHINE_MUTANTS.find((m) => m.name === name)!.machine;

const toReconnect: Observation[] = [
  { type: 'OPEN', status: 200 },
  { type: 'EVENT', id: 41 },
  { type: 'IDLE_TIMEOUT' },
  { type: 'RECONNECT', cursor: 41 },
];

describe('decision texts', () => {
  test('accept-any-200 (trusts-any-200) on the stall names event 130, not 42', () => {
    const s = runObservations(
      [...toReconnect, { type: 'RESPONSE', status: 200 }, { type: 'EVENT', id: 130 }],
      mutant('accept-any-200'),
    );
    expect(stateOf(s)).toBe('resumed');
    expect(s.context.reason?.text).toBe(
      "first event 130 taken for the cursor's successor 42 without proof",
    );
  });

  test("the model's own successor text is unchanged", () => {
    const s = runObservations([
      ...toReconnect,
      { type: 'RESPONSE', status: 200 },
      { type: 'EVENT', id: 42 },
    ]);
    expect(s.context.reason?.text).toBe("first event 42 is the cursor's successor");
  });

  test('keepalive-is-proof says no floor was declared, never "floor ?"', () => {
    const s = runObservations(
      [...toReconnect, { type: 'RESPONSE', status: 200 }, { type: 'KEEPALIVE' }],
      mutant('keepalive-is-proof'),
    );
    expect(stateOf(s)).toBe('delayed');
    expect(s.context.reason?.text).toBe(
      'no replay floor declared, yet KEEPALIVE taken as one covering cursor 41; waiting without proof',
    );
    expect(s.context.reason?.text).not.toMatch(/\?|undefined/);
  });

  test('a declared floor is named', () => {
    const s = runObservations([...toReconnect, { type: 'RESPONSE', status: 200, floor: 30 }]);
    expect(s.context.reason?.text).toBe(
      'declared replay floor 30 covers cursor 41; silence is delay',
    );
  });
});
