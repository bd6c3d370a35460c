/**
 * The guard's fast path for the common event (src/runtime/machine-track.ts) against the
 * machine: fed the same observations, a MachineTrack that takes every event it can by the fast
 * path is in the engine's state after every step, for the real machine and each engine. A fast
 * path that skips its stream check (`ignores-stream`) is caught.
 */
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { clientMachine } from '../../model/client-machine.js';
import type { Observation } from '../../model/observations.js';
import { MachineTrack, isPureCursorStep } from '../../src/runtime/machine-track.js';
import {
  mutantMachineTrack,
  type FastPathMutant,
} from '../../src/runtime-mutants/reader-mutants.js';
import { compileMachine, xstateEngine, type Engine } from '../../src/trace/engine.js';
import { announceSeed, runs } from '../support/seed.js';

const seed = announceSeed('properties/runtime/machine-track.test.ts');

const stream = fc.constantFrom(undefined, 'a', 'b');
/** Observations weighted towards runs of successor events, where the fast path works. */
const observation: fc.Arbitrary<Observation> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record(
      { type: fc.constant('EVENT' as const), id: fc.integer({ min: 0, max: 12 }), stream },
      { requiredKeys: ['type', 'id'] },
    ),
  },
  {
    weight: 1,
    arbitrary: fc.record(
      { type: fc.constant('OPEN' as const), status: fc.constantFrom(200, 404), stream },
      { requiredKeys: ['type', 'status'] },
    ),
  },
  {
    weight: 1,
    arbitrary: fc.record(
      {
        type: fc.constant('RECONNECT' as const),
        cursor: fc.option(fc.integer({ min: 0, max: 12 })),
        stream,
      },
      { requiredKeys: ['type', 'cursor'] },
    ),
  },
  {
    weight: 1,
    arbitrary: fc.record(
      {
        type: fc.constant('RESPONSE' as const),
        status: fc.constantFrom(200, 404, 500),
        floor: fc.integer({ min: 0, max: 12 }),
      },
      { requiredKeys: ['type', 'status'] },
    ),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom<Observation>(
      { type: 'DATA' },
      { type: 'KEEPALIVE' },
      { type: 'END' },
      { type: 'DISCONNECT' },
      { type: 'IDLE_TIMEOUT' },
      { type: 'PROOF_TIMEOUT' },
    ),
  },
);
/**
 * Runs of successors (the stream's ids going up by one), between other observations; the last
 * successor of a run may name another stream.
 */
const event = (id: number, s: string | undefined): Observation =>
  s === undefined ? { type: 'EVENT', id } : { type: 'EVENT', id, stream: s };
const run = fc
  .tuple(fc.integer({ min: 0, max: 12 }), fc.integer({ min: 1, max: 8 }), stream, stream)
  .map(([from, n, s, last]) => [
    ...Array.from({ length: n }, (_, i) => event(from + i, s)),
    event(from + n, last),
  ]);
const observations = fc
  .array(
    fc.oneof(
      observation.map((o) => [o]),
      run,
    ),
    { maxLength: 30 },
  )
  .map((xs) => xs.flat());

/** Feeds `os` to a fast-path track and to the engine; the first step where they differ. */
function firstDifference(
  engine: Engine,
  os: Observation[],
  mutant?: FastPathMutant,
): { at: number; fast: unknown; machine: unknown } | null {
  const track = mutant ? mutantMachineTrack(engine, mutant) : new MachineTrack(engine);
  let reference = engine.initial();
  for (let at = 0; at < os.length; at++) {
    const o = os[at]!;
    reference = engine.step(reference, o);
    if (o.type !== 'EVENT' || !track.successor(o.id, o.stream)) track.step(o);
    const got = track.snapshot;
    if (
      got.value !== reference.value ||
      JSON.stringify(got.context) !== JSON.stringify(reference.context)
    )
      return { at, fast: got, machine: reference };
  }
  return null;
}

const ENGINES: [string, Engine][] = [
  ['compiled', compileMachine(clientMachine)],
  ['xstate', xstateEngine(clientMachine)],
];

describe('the fast path agrees with the machine', () => {
  for (const [name, engine] of ENGINES) {
    test.prop([observations], { seed, numRuns: runs(name === 'compiled' ? 3000 : 300) })(
      `${name} engine: the same state after every observation`,
      (os) => {
        expect(firstDifference(engine, os)).toBeNull();
      },
    );
  }

  test('a successor run is taken by the fast path after the first step (it is used at all)', () => {
    const engine = ENGINES[0]![1];
    const track = new MachineTrack(engine);
    track.step({ type: 'OPEN', status: 200 });
    track.step({ type: 'EVENT', id: 1 }); // cursor null to 1: not a cursor step
    expect(track.successor(2, undefined)).toBe(false);
    track.step({ type: 'EVENT', id: 2 }); // 1 to 2: the machine's pure cursor step
    expect(track.successor(3, undefined)).toBe(true);
    expect(track.successor(5, undefined)).toBe(false); // a skip goes to the machine
    expect(track.successor(4, 'other')).toBe(false); // so does another stream
    expect(track.snapshot).toEqual({
      value: 'streaming',
      context: expect.objectContaining({ cursor: 3 }),
    });
  });

  test('a step that changes anything but the cursor is no cursor step', () => {
    const s = (cursor: number | null, idless = false) => ({
      value: 'streaming',
      context: {
        cursor,
        stream: null,
        epoch: null,
        idless,
        floor: null,
        outcome: null,
        reason: null,
      },
    });
    expect(isPureCursorStep(s(1), s(2), { type: 'EVENT', id: 2 })).toBe(true);
    expect(isPureCursorStep(s(1, true), s(2), { type: 'EVENT', id: 2 })).toBe(false);
    expect(isPureCursorStep(s(2), s(2), { type: 'EVENT', id: 2 })).toBe(false);
    expect(isPureCursorStep(s(null), s(2), { type: 'EVENT', id: 2 })).toBe(false);
    expect(isPureCursorStep(s(1), { ...s(2), value: 'resumed' }, { type: 'EVENT', id: 2 })).toBe(
      false,
    );
    // The cursor must end at the event's id, and every other field of the context stay.
    expect(isPureCursorStep(s(1), s(3), { type: 'EVENT', id: 2 })).toBe(false);
    const changed = { stream: 'a', epoch: 'e', floor: 0, outcome: 'resumed', reason: 'successor' };
    for (const [field, value] of Object.entries(changed)) {
      const after = { ...s(2), context: { ...s(2).context, [field]: value } };
      expect(isPureCursorStep(s(1), after, { type: 'EVENT', id: 2 }), field).toBe(false);
    }
    // In a state with a time budget (delayed), the step is left to the machine, even a pure one.
    const delayed = (cursor: number) => ({ ...s(cursor), value: 'delayed' });
    expect(isPureCursorStep(delayed(1), delayed(2), { type: 'EVENT', id: 2 })).toBe(false);
  });
});

describe('the property kills a fast path that skips a check', () => {
  test('ignores-stream: a successor id from another stream is taken', () => {
    const engine = ENGINES[0]![1];
    const result = fc.check(
      fc.property(observations, (os) => firstDifference(engine, os, 'ignores-stream') === null),
      { seed, numRuns: runs(3000) },
    );
    expect(result.failed).toBe(true);
  });
});
