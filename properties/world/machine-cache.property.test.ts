/**
 * The world's memo of the client machine (model/world/machine-cache.ts) changes nothing but
 * the speed: fed any sequence of observations, it reaches the snapshots that stepping the
 * machine directly reaches. Its two keys are exact: equal observation keys only for equal
 * observations, equal snapshot keys only for equal snapshots. Observations range wider than
 * the world's (id-less data, other streams, unusual statuses, epochs and floors), so that a key
 * that drops a field the machine reads is caught; each key property kills such a key.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clientMachine } from '../../model/client-machine.js';
import type { Observation } from '../../model/observations.js';
import { initialSnapshot, step, type ClientSnapshot } from '../../model/run.js';
import { obsKey, snapshotKey, stepCache } from '../../model/world/machine-cache.js';
import { announceSeed, runs, SEED } from '../support/seed.js';

announceSeed('properties/world/machine-cache.property.test.ts');

const params = (numRuns: number) => ({ seed: SEED, numRuns: runs(numRuns) });

const id = fc.oneof(fc.nat({ max: 12 }), fc.constantFrom(999_999_999, 1_000_000_000, 2 ** 40));
const stream = fc.constantFrom(undefined, 'tool', 'tool', 'other', 'x');
const epoch = fc.constantFrom(undefined, 'e1', 'e2', 'e9', 'e0', 'e10', 'E1');

function defined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

/** Observations of each kind (the bare ones together): pairs of one kind are drawn from one. */
const ofEachKind: fc.Arbitrary<Observation>[] = [
  fc
    .record({ id, stream })
    .map(({ id, stream }) => defined({ type: 'EVENT' as const, id, stream })),
  fc
    .record({ cursor: fc.option(id), stream })
    .map(({ cursor, stream }) => defined({ type: 'RECONNECT' as const, cursor, stream })),
  fc
    .record({
      status: fc.constantFrom(200, 200, 200, 404, 410, 416, 500, 503),
      floor: fc.option(fc.oneof(fc.nat({ max: 14 }), fc.constant(1_000_000)), { nil: undefined }),
      epoch,
      durable: fc.constantFrom(undefined, true, false),
    })
    .map((r) => defined({ type: 'RESPONSE' as const, ...r })),
  fc
    .record({ status: fc.constantFrom(200, 200, 500), epoch })
    .map((r) => defined({ type: 'OPEN' as const, ...r })),
  // The observations that carry nothing but their type.
  fc
    .constantFrom('DATA', 'KEEPALIVE', 'IDLE_TIMEOUT', 'PROOF_TIMEOUT', 'DISCONNECT', 'END')
    .map((type) => ({ type }) as Observation),
];

const observation: fc.Arbitrary<Observation> = fc.oneof(...ofEachKind);

/** What a snapshot decides with and reports: its state and its context. */
const seen = (s: ClientSnapshot) => ({ value: s.value, context: s.context });

/** Snapshots reached by stepping the machine directly (no memo) along observations. */
function stepped(obs: readonly Observation[]): ClientSnapshot[] {
  let s = initialSnapshot();
  const out = [s];
  for (const o of obs) out.push((s = step(s, o)));
  return out;
}

/**
 * Two runs of snapshots: unrelated ones, and neighbours (the same observations, the second with
 * one more inserted, most often one that carries nothing but its type), whose snapshots differ
 * in what one step changed: what an inexact key confuses. With unrelated runs only, a key
 * without the id-less data flag took up to 1573 of its 2000 runs to be killed over 200 seeds.
 */
const snapshotRuns: fc.Arbitrary<[ClientSnapshot[], ClientSnapshot[]]> = fc
  .oneof(
    fc.tuple(fc.array(observation, { maxLength: 25 }), fc.array(observation, { maxLength: 25 })),
    fc
      .tuple(
        fc.array(observation, { maxLength: 25 }),
        fc.nat(),
        fc.oneof(observation, ofEachKind.at(-1)!),
      )
      .map(([obs, k, o]) => {
        const at = k % (obs.length + 1);
        return [obs, [...obs.slice(0, at), o, ...obs.slice(at)]];
      }),
  )
  .map(([a, b]) => [stepped(a), stepped(b)]);

type ObsKey = (o: Observation) => unknown;
type SnapKey = (s: ClientSnapshot) => unknown;

/**
 * Pairs of observations: unrelated ones, and neighbours (one field of the first replaced by
 * the second's, or dropped), which are what an inexact key confuses.
 */
const observationPair: fc.Arbitrary<[Observation, Observation]> = fc
  .tuple(
    // Two of one kind most of the time: drawn independently, two observations are of one kind
    // one time in five, and a key that drops durable (a field of one kind) took up to 1637 of
    // its 2000 runs to be killed over 200 seeds.
    fc.oneof(fc.tuple(observation, observation), ...ofEachKind.map((o) => fc.tuple(o, o))),
    fc.nat(),
    fc.boolean(),
  )
  .map(([[a, b], k, unrelated]) => {
    if (unrelated || a.type !== b.type) return [a, b];
    const fields = [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((f) => f !== 'type');
    if (fields.length === 0) return [a, b];
    const f = fields[k % fields.length]!;
    const c: Record<string, unknown> = { ...a };
    const v = (b as unknown as Record<string, unknown>)[f];
    if (v === undefined) delete c[f];
    else c[f] = v;
    return [a, c as unknown as Observation];
  });

/** Observations as values: field order and absent fields do not matter. */
const same = (a: Observation, b: Observation) =>
  JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b).sort());

const obsKeyExact = (key: ObsKey) =>
  fc.property(observationPair, ([a, b]) => {
    expect(key(a) === key(b)).toBe(same(a, b));
  });

const snapKeyExact = (key: SnapKey) =>
  fc.property(snapshotRuns, ([xs, ys]) => {
    for (const a of xs)
      for (const b of ys) {
        if (key(a) === key(b)) expect(seen(a)).toEqual(seen(b));
      }
  });

const killed = (p: fc.IProperty<never[]> | fc.IProperty<unknown[]>) =>
  fc.check(p, { ...params(2000), verbose: 0 }).failed;

describe('the machine memo changes nothing but the speed', () => {
  it('reaches the snapshots that stepping the machine directly reaches', () => {
    const cache = stepCache(clientMachine);
    fc.assert(
      fc.property(fc.array(observation, { maxLength: 30 }), (obs) => {
        let direct = initialSnapshot();
        let memo = cache.initial;
        for (const o of obs) {
          direct = step(direct, o);
          memo = cache.step(memo, o);
          expect(seen(memo)).toEqual(seen(direct));
        }
      }),
      params(500),
    );
  });

  it('gives equal observation keys only to equal observations', () => {
    fc.assert(obsKeyExact(obsKey), params(3000));
  });

  it('gives equal snapshot keys only to equal snapshots', () => {
    fc.assert(snapKeyExact(snapshotKey), params(200));
  });
});

describe('the key properties kill inexact keys', () => {
  it('kills an observation key that ignores durable', () => {
    const key: ObsKey = (o) =>
      o.type === 'RESPONSE' ? obsKey({ ...o, durable: undefined }) : obsKey(o);
    expect(killed(obsKeyExact(key))).toBe(true);
  });

  it('kills an observation key that reads every epoch as e1', () => {
    const key: ObsKey = (o) =>
      o.type === 'RESPONSE' && o.epoch !== undefined ? obsKey({ ...o, epoch: 'e1' }) : obsKey(o);
    expect(killed(obsKeyExact(key))).toBe(true);
  });

  it('kills a snapshot key without the id-less data flag', () => {
    const key: SnapKey = (s) =>
      snapshotKey({ ...s, context: { ...s.context, idless: false } } as ClientSnapshot);
    expect(killed(snapKeyExact(key))).toBe(true);
  });
});
