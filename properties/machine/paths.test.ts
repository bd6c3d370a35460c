/**
 * Model-based path testing with `createTestModel` from `xstate/graph` (the successor of
 * `@xstate/test`). Every path the graph walker produces is executed against the reference
 * adapter (the seed's `verifyResumption` behind the same observations), and a disagreement
 * fails with the path's description. A coverage test checks that the paths take every state
 * and every transition listed from the machine itself.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createTestModel } from 'xstate/graph';
import { clientMachine, type ClientMachine } from '../../model/client-machine.js';
import { MACHINE_MUTANTS } from '../../model/mutants/machine-mutants.js';
import type { Observation } from '../../model/observations.js';
import { describeObservations } from '../../model/describe.js';
import { initialSnapshot, step, stateOf, type ClientSnapshot } from '../../model/run.js';
import { firedTransition, listStates, listTransitions } from '../../model/transitions.js';
import { pathEvents } from './path-events.js';
import { ReferenceAdapter } from './reference-adapter.js';

const model = createTestModel(clientMachine, {
  events: pathEvents as (s: ClientSnapshot) => Observation[],
});

const shortest = model.getShortestPaths();

/**
 * Transition tour: every shortest path extended by each observation that fires a transition
 * from its end state. Self-loops (a keepalive) never lead to a new vertex, so shortest paths
 * alone never take them; the tour takes every edge of the graph.
 */
function vertexKey(snap: ClientSnapshot): string {
  return JSON.stringify([snap.value, snap.context]);
}

/** The shortest way to each vertex: every prefix of every shortest path. */
const prefixes = new Map<string, { state: ClientSnapshot; events: Observation[] }>();
for (const p of shortest) {
  p.steps.forEach((s, i) => {
    const key = vertexKey(s.state);
    if (!prefixes.has(key)) {
      prefixes.set(key, { state: s.state, events: p.steps.slice(0, i + 1).map((x) => x.event) });
    }
  });
}
const tour: Observation[][] = [...prefixes.values()].flatMap(({ state, events }) =>
  pathEvents(state)
    .filter((ev) => firedTransition(clientMachine, state, ev) !== null)
    .map((ev) => [...events, ev]),
);

/** Feeds the machine and the adapter in lockstep; they must agree after every observation. */
function runLockstep(events: Observation[]): void {
  const adapter = new ReferenceAdapter();
  let snap = initialSnapshot();
  events.forEach((ev, i) => {
    snap = step(snap, ev);
    adapter.observe(ev);
    const where = `after step ${i + 1} of: ${describeObservations(events)}`;
    expect(adapter.phase, where).toBe(stateOf(snap));
    expect(adapter.outcome, where).toBe(snap.context.outcome);
  });
}

/** One reconnect, from the first event to a decision: small enough for all simple paths. */
function oneReconnectEvents(snapshot: ClientSnapshot): Observation[] {
  const c = snapshot.context.cursor;
  const state = stateOf(snapshot);
  if (state === 'connecting') return [{ type: 'OPEN', status: 200, epoch: 'e1' }];
  if (state === 'streaming') {
    return c === null ? [{ type: 'EVENT', id: 1 }] : [{ type: 'IDLE_TIMEOUT' }, { type: 'END' }];
  }
  if (state === 'stalled' || state === 'closed') return [{ type: 'RECONNECT', cursor: c }];
  const base = c ?? 0;
  return [
    { type: 'RESPONSE', status: 200 },
    { type: 'RESPONSE', status: 404 },
    { type: 'RESPONSE', status: 200, floor: base + 1 },
    { type: 'RESPONSE', status: 200, floor: base + 3 },
    { type: 'RESPONSE', status: 200, floor: base + 1, head: base },
    { type: 'RESPONSE', status: 200, head: base - 1 },
    { type: 'RESPONSE', status: 200, epoch: 'e2' },
    { type: 'KEEPALIVE' },
    { type: 'PROOF_TIMEOUT' },
    { type: 'END' },
    { type: 'DATA' },
    { type: 'EVENT', id: base + 1 },
    { type: 'EVENT', id: base + 2 },
    { type: 'EVENT', id: base },
  ];
}

const simple = createTestModel(clientMachine, {
  events: oneReconnectEvents as (s: ClientSnapshot) => Observation[],
}).getSimplePaths({
  // A decided reconnect ends the walk: the question is answered.
  stopWhen: (s) => s.context.outcome !== null && s.context.outcome !== 'delayed',
});

/** Runs one path against the adapter; every state on the way must agree with the machine. */
async function runAgainstAdapter(path: (typeof shortest)[number]): Promise<void> {
  const adapter = new ReferenceAdapter();
  const observe = ({ event }: { event: Observation }) => adapter.observe(event);
  await path.test({
    states: {
      '*': (snapshot) => {
        const where = `${path.description}\n  at ${String(snapshot.value)}`;
        expect(adapter.phase, where).toBe(snapshot.value);
        expect(adapter.outcome, where).toBe(snapshot.context.outcome);
      },
    },
    events: {
      OPEN: observe,
      EVENT: observe,
      DATA: observe,
      KEEPALIVE: observe,
      IDLE_TIMEOUT: observe,
      PROOF_TIMEOUT: observe,
      DISCONNECT: observe,
      END: observe,
      RECONNECT: observe,
      RESPONSE: observe,
    } as never,
  });
}

describe('xstate/graph paths against the reference adapter', () => {
  it('walks a non-trivial graph', () => {
    expect(shortest.length).toBeGreaterThan(100);
    expect(simple.length).toBeGreaterThan(20);
    expect(tour.length).toBeGreaterThan(shortest.length);
  });

  it('agrees on every shortest path', async () => {
    for (const path of shortest) await runAgainstAdapter(path);
  });

  it('agrees on every path of the transition tour', async () => {
    for (const events of tour) runLockstep(events);
  });

  it('agrees on every simple path of one reconnect', async () => {
    for (const path of simple) await runAgainstAdapter(path);
  });
});

describe('named paths against the reference adapter', () => {
  // The review of 0190c89 (S2): events 1 and 2, a reconnect that fails on a skip, id-less data
  // delivered on the failed stream, then a reconnect of the old cursor answered by its
  // successor. Rule 0.3 has no exception after a failure: the data taints the stream, so the
  // second reconnect is resumption-failed (idless-data) although event 3 comes first.
  const dataAfterFailure: Observation[] = [
    { type: 'OPEN', status: 200 },
    { type: 'EVENT', id: 1 },
    { type: 'EVENT', id: 2 },
    { type: 'DISCONNECT' },
    { type: 'RECONNECT', cursor: 2 },
    { type: 'RESPONSE', status: 200 },
    { type: 'EVENT', id: 7 },
    { type: 'DATA' },
    { type: 'DISCONNECT' },
    { type: 'RECONNECT', cursor: 2 },
    { type: 'RESPONSE', status: 200 },
    { type: 'EVENT', id: 3 },
  ];
  const final = (events: Observation[], machine: ClientMachine = clientMachine) =>
    events.reduce((snap, ev) => step(snap, ev, machine), initialSnapshot(machine));

  it('id-less data after a failed reconnect taints the stream (rule 0.3, idless-data)', () => {
    runLockstep(dataAfterFailure);
    const at = final(dataAfterFailure.slice(0, 10));
    expect(stateOf(at)).toBe('resumptionFailed');
    expect(at.context.reason?.code).toBe('idless-data');
    // The data's taint is decided at the reconnect: what the answer says never undoes it.
    const end = final(dataAfterFailure);
    expect(stateOf(end)).toBe('resumptionFailed');
    expect(end.context.reason?.code).toBe('idless-data');
  });

  it('kills ignores-data-after-failure: that mutant resumes the tainted reconnect', () => {
    const mutant = MACHINE_MUTANTS.find((m) => m.name === 'ignores-data-after-failure')!;
    const end = final(dataAfterFailure, mutant.machine);
    expect(stateOf(end)).toBe('resumed');
    expect(end.context.reason?.code).toBe('successor');
  });

  it('an event delivered after that data ends the taint, as on an accepted stream', () => {
    const cleared = [...dataAfterFailure.slice(0, 8), { type: 'EVENT', id: 8 } as Observation];
    runLockstep([...cleared, { type: 'END' }, { type: 'RECONNECT', cursor: 8 }]);
    expect(stateOf(final([...cleared, { type: 'END' }, { type: 'RECONNECT', cursor: 8 }]))).toBe(
      'reconnecting',
    );
  });

  it('data that fails a reconnect before proof (rule 6.2) taints the stream too', () => {
    const before: Observation[] = [
      ...dataAfterFailure.slice(0, 6),
      { type: 'DATA' },
      { type: 'DISCONNECT' },
      { type: 'RECONNECT', cursor: 2 },
    ];
    runLockstep(before);
    expect(final(before.slice(0, 7)).context.reason?.code).toBe('unproven-data');
    expect(final(before).context.reason?.code).toBe('idless-data');
  });
});

describe('coverage of the machine by the paths', () => {
  /** Replays a path and names each transition it takes. */
  function transitionsOf(events: Observation[]): string[] {
    let snap = initialSnapshot();
    const ids: string[] = [];
    for (const ev of events) {
      const id = firedTransition(clientMachine, snap, ev);
      if (id) ids.push(id);
      snap = step(snap, ev);
    }
    return ids;
  }

  const sequences = [...shortest, ...simple].map((p) => p.steps.map((s) => s.event)).concat(tour);
  const taken = new Set(sequences.flatMap(transitionsOf));
  const visited = new Set(
    [...shortest, ...simple].flatMap((p) => p.steps.map((s) => String(s.state.value))),
  );

  it('visits every state of the machine', () => {
    const missing = listStates(clientMachine).filter((s) => !visited.has(s));
    expect(missing, `states no path visits: ${missing.join(', ')}`).toEqual([]);
  });

  it('takes every transition of the machine', () => {
    const all = listTransitions(clientMachine).map((t) => t.id);
    expect(all.length).toBeGreaterThan(40);
    const missing = all.filter((id) => !taken.has(id));
    expect(missing, `transitions no path takes: ${missing.join(', ')}`).toEqual([]);
  });

  it('names only transitions that exist', () => {
    const all = new Set(listTransitions(clientMachine).map((t) => t.id));
    expect([...taken].filter((id) => !all.has(id))).toEqual([]);
  });
});

/**
 * The state-space manifest (the tlaplus/Examples habit): the size of the graph the walker sees.
 * A change to the machine or to the path generator that alters the state space shows up as a
 * diff of `state-space.manifest.json`; regenerate it with
 * `MCPR_UPDATE_MANIFEST=1 npx vitest run properties/machine/paths.test.ts` and commit the diff.
 */
describe('state-space manifest', () => {
  const manifestUrl = new URL('./state-space.manifest.json', import.meta.url);
  const adjacency = model.getAdjacencyMap();
  const measured = {
    machineStates: listStates(clientMachine).length,
    machineTransitions: listTransitions(clientMachine).length,
    graphVertices: Object.keys(adjacency).length,
    graphEdges: Object.values(adjacency).reduce((n, v) => n + Object.keys(v.transitions).length, 0),
    shortestPaths: shortest.length,
    tourPaths: tour.length,
    oneReconnectSimplePaths: simple.length,
  };

  it('matches the committed manifest', () => {
    if (process.env.MCPR_UPDATE_MANIFEST) {
      writeFileSync(manifestUrl, JSON.stringify(measured, null, 2) + '\n');
    }
    const committed = JSON.parse(readFileSync(manifestUrl, 'utf8')) as typeof measured;
    expect(measured).toEqual(committed);
  });
});
