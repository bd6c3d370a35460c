/**
 * Differential properties between the client machine (or a mutant of it) and the seed's
 * reference function. Written as functions of the machine so that the mutant suite can show
 * that each property is able to fail.
 */
import fc from 'fast-check';
import { clientMachine, type ClientMachine } from '../../model/client-machine.js';
import type { Observation } from '../../model/observations.js';
import { initialSnapshot, step, stateOf } from '../../model/run.js';
import { classifyReconnect } from '../../src/classify.js';
import {
  drainWithContinuity,
  StreamResumptionError,
  verifyResumption,
  type Event,
  type ReconnectResult,
} from '../../src/reference.js';
import { ReferenceAdapter } from './reference-adapter.js';

/** One generated reconnect in the seed's vocabulary. */
export interface ReconnectCase {
  cursor: number;
  result: ReconnectResult;
  retainedFloor: number | null;
  rest: Event[];
}

const ev = (id: number): Event => ({ id, kind: 'progress', payload: {} });

/** Generated reconnects: ids and floors near the cursor, where the boundary is. */
export const reconnectCase: fc.Arbitrary<ReconnectCase> = fc
  .record({
    cursor: fc.integer({ min: 0, max: 200 }),
    status: fc.constantFrom(200, 200, 200, 200, 404, 410, 500, 204, 302),
    floorDelta: fc.option(fc.integer({ min: -3, max: 4 })),
    retainedDelta: fc.option(fc.integer({ min: -3, max: 4 })),
    firstDelta: fc.option(fc.integer({ min: -3, max: 3 }), { freq: 3 }),
    durable: fc.boolean(),
    steps: fc.array(fc.constantFrom(1, 1, 1, 1, 2, 0), { maxLength: 6 }),
  })
  .map(({ cursor, status, floorDelta, retainedDelta, firstDelta, durable, steps }) => {
    const first = firstDelta === null ? null : Math.max(0, cursor + 1 + firstDelta);
    const rest: Event[] = [];
    let id = first ?? 0;
    for (const s of first === null ? [] : steps) {
      id += s;
      rest.push(ev(id));
    }
    return {
      cursor,
      result: {
        httpStatus: status,
        replayFloor: floorDelta === null ? null : Math.max(0, cursor + floorDelta),
        firstEvent: first === null ? null : ev(first),
        sessionDurable: durable,
      },
      retainedFloor: retainedDelta === null ? null : Math.max(0, cursor + retainedDelta),
      rest,
    };
  });

/** The seed's outcome for a case. */
export function referenceOutcome(
  c: ReconnectCase,
): 'resumed' | 'resumption-failed' | 'session-lost' {
  try {
    verifyResumption(c.cursor, c.result, c.retainedFloor);
    // The floor has been checked; drain re-verifies the first event, then the rest.
    if (c.result.firstEvent !== null) drainWithContinuity(c.cursor, c.rest, c.result);
    return 'resumed';
  } catch (e) {
    if (e instanceof StreamResumptionError) return e.outcome;
    throw e;
  }
}

/**
 * The documented deviation (docs/deviations.md): an empty 200 stream from a durable session
 * whose declared floor covers the cursor. The model waits (delayed); the seed's code fails.
 */
export function isDeviation(c: ReconnectCase): boolean {
  const floor = c.result.replayFloor ?? c.retainedFloor;
  return (
    c.result.httpStatus === 200 &&
    c.result.sessionDurable &&
    c.result.firstEvent === null &&
    floor !== null &&
    c.cursor >= floor - 1
  );
}

/** Machine and reference agree on every case outside the deviation. */
export function resultDifferential(machine: ClientMachine = clientMachine) {
  return fc.property(reconnectCase, (c) => {
    fc.pre(!isDeviation(c));
    const got = classifyReconnect(c.cursor, c.result, c.retainedFloor, c.rest, machine);
    const want = referenceOutcome(c);
    if (got.outcome !== want) {
      throw new Error(
        `machine says ${got.outcome} (${got.reason?.text}), reference says ${want} for ${JSON.stringify(c)}`,
      );
    }
  });
}

/** On the deviation, the machine says delayed and the reference fails with an empty stream. */
export function deviationProperty(machine: ClientMachine = clientMachine) {
  const deviation: fc.Arbitrary<ReconnectCase> = fc.integer({ min: 0, max: 200 }).chain((cursor) =>
    fc.record({
      cursor: fc.constant(cursor),
      result: fc.record({
        httpStatus: fc.constant(200),
        replayFloor: fc.option(fc.integer({ min: 0, max: cursor + 1 })),
        firstEvent: fc.constant(null),
        sessionDurable: fc.constant(true),
      }),
      retainedFloor: fc.integer({ min: 0, max: cursor + 1 }),
      rest: fc.constant([]),
    }),
  );
  return fc.property(deviation, (c) => {
    const got = classifyReconnect(c.cursor, c.result, c.retainedFloor, c.rest, machine);
    if (got.outcome !== 'delayed') {
      throw new Error(`machine says ${got.outcome}, model says delayed for ${JSON.stringify(c)}`);
    }
    if (referenceOutcome(c) !== 'resumption-failed') {
      throw new Error(`the seed's code no longer fails an empty stream: ${JSON.stringify(c)}`);
    }
  });
}

/** Observations from a small grammar: statuses, floors, epochs, ids and streams near 0..6. */
export const observation: fc.Arbitrary<Observation> = fc.oneof(
  { arbitrary: fc.constant<Observation>({ type: 'OPEN', status: 200, epoch: 'e1' }), weight: 1 },
  {
    arbitrary: fc
      .record({ id: fc.integer({ min: 0, max: 6 }), other: fc.boolean() })
      .map(
        ({ id, other }) => ({ type: 'EVENT', id, stream: other ? 'other' : 's1' }) as Observation,
      ),
    weight: 8,
  },
  {
    arbitrary: fc.constantFrom<Observation>(
      { type: 'KEEPALIVE' },
      { type: 'DATA' },
      { type: 'IDLE_TIMEOUT' },
      { type: 'PROOF_TIMEOUT' },
      { type: 'DISCONNECT' },
      { type: 'END' },
    ),
    weight: 4,
  },
  {
    arbitrary: fc
      .option(fc.integer({ min: 0, max: 6 }), { freq: 6 })
      .map((cursor) => ({ type: 'RECONNECT', cursor }) as Observation),
    weight: 3,
  },
  {
    arbitrary: fc
      .record({
        status: fc.constantFrom(200, 200, 200, 404, 410, 500),
        // Half the answers state nothing: the common case, where only an event can prove.
        floor: fc.option(fc.integer({ min: 0, max: 7 }), { freq: 2 }),
        epoch: fc.option(fc.constantFrom('e1', 'e2'), { freq: 2 }),
        durable: fc.option(fc.boolean(), { freq: 2 }),
        // A stated head (docs/spec.md#caught-up), rarer: below, at and above the cursor.
        head: fc.option(fc.integer({ min: 0, max: 7 }), { freq: 3 }),
      })
      .map(
        ({ status, floor, epoch, durable, head }) =>
          ({
            type: 'RESPONSE',
            status,
            ...(floor !== null ? { floor } : {}),
            ...(head !== null ? { head } : {}),
            ...(epoch !== null ? { epoch } : {}),
            ...(durable !== null ? { durable } : {}),
          }) as Observation,
      ),
    weight: 3,
  },
);

/**
 * A reconnect episode: RECONNECT, the server's RESPONSE, then what the client sees while it
 * waits. Free sequences reach "a keepalive right after a 200 that proved nothing" only about
 * once in 700 runs, so episodes put the decision points next to each other on purpose.
 */
export const reconnectEpisode: fc.Arbitrary<Observation[]> = fc
  .tuple(
    fc.option(fc.integer({ min: 0, max: 6 }), { freq: 6 }),
    observation.filter((o) => o.type === 'RESPONSE'),
    fc.array(
      fc.oneof(
        fc.constantFrom<Observation>(
          { type: 'KEEPALIVE' },
          { type: 'PROOF_TIMEOUT' },
          { type: 'END' },
          { type: 'DATA' },
        ),
        observation,
      ),
      { maxLength: 4 },
    ),
  )
  .map(([cursor, response, tail]) => [
    { type: 'RECONNECT', cursor } as Observation,
    response,
    ...tail,
  ]);

/** Machine and reference adapter agree after every observation of any sequence. */
export function lockstepDifferential(machine: ClientMachine = clientMachine) {
  const opened: Observation = { type: 'OPEN', status: 200, epoch: 'e1' };
  const sequence = fc
    .array(
      fc.oneof(
        { arbitrary: observation.map((o) => [o]), weight: 4 },
        { arbitrary: reconnectEpisode, weight: 1 },
      ),
      { maxLength: 20 },
    )
    .map((chunks) => [opened, ...chunks.flat()]);
  return fc.property(sequence, (obs) => {
    const adapter = new ReferenceAdapter();
    let snap = initialSnapshot(machine);
    obs.forEach((o, i) => {
      snap = step(snap, o, machine);
      adapter.observe(o);
      if (adapter.phase !== stateOf(snap) || adapter.outcome !== snap.context.outcome) {
        throw new Error(
          `after observation ${i + 1} (${o.type}): machine ${stateOf(snap)}/${snap.context.outcome}, ` +
            `reference ${adapter.phase}/${adapter.outcome}`,
        );
      }
    });
  });
}
