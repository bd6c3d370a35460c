/**
 * A memo of the client machine's pure `transition()`. The machine is a pure function of
 * (snapshot value, context, observation), so caching its results by value changes nothing but
 * the speed: one `transition()` costs about 20 µs, a cache hit well under 1 µs.
 */
import type { ClientMachine } from '../client-machine.js';
import type { Observation } from '../observations.js';
import { initialSnapshot, step, type ClientSnapshot } from '../run.js';
import { firedTransition } from '../transitions.js';

/**
 * One interned snapshot and its row of the memo (observation key to the entry it leads to). The
 * world's client holds the entry of its snapshot, so that a step reads the row from an object
 * of one shape instead of looking it up on the snapshot (xstate's snapshots come in several
 * shapes, which made that lookup a polymorphic keyed load on every observation).
 */
export interface MemoEntry {
  snap: ClientSnapshot;
  row: Map<string | number, MemoEntry>;
}

/** Steps one machine (the model or a mutant), memoized. */
export interface StepCache {
  machine: ClientMachine;
  initial: ClientSnapshot;
  /** The snapshot after `observation` (the machine's `transition()`, memoized). */
  step(snapshot: ClientSnapshot, observation: Observation): ClientSnapshot;
  /** The memo entry of `snapshot` (interned, as every snapshot `step` returns). */
  entryOf(snapshot: ClientSnapshot): MemoEntry;
  /** `step` from an entry to an entry: the world's hot path. */
  next(entry: MemoEntry, observation: Observation): MemoEntry;
  /** The id of the transition `observation` takes from `snapshot` (see `firedTransition`). */
  fired(snapshot: ClientSnapshot, observation: Observation): string | null;
  /** Cache hits and misses so far. */
  stats: { hits: number; misses: number };
}

const STREAM_CODE: Record<string, number> = { tool: 0, other: 2 };
const STATUS_CODE: Record<number, number> = { 200: 0, 404: 1, 410: 2, 416: 3, 500: 4 };

/** 0..2 for the stream names of the world (`undefined` is 1), or -1 for any other. */
function streamCode(stream: string | undefined): number {
  if (stream === undefined) return 1;
  return STREAM_CODE[stream] ?? -1;
}

/** 0..9 for an epoch `e1`..`e9` (`undefined` is 0: `e0` is not read as a digit), or -1. */
function epochCode(epoch: string | undefined): number {
  if (epoch === undefined) return 0;
  if (epoch.length !== 2 || epoch.charCodeAt(0) !== 101 /* e */) return -1;
  const d = epoch.charCodeAt(1) - 48;
  return d >= 1 && d <= 9 ? d : -1;
}

/**
 * The memo key of an observation: a number for the common ones (building and hashing a string
 * for every reconnect and response cost more than the rest of a memo hit), a string for the
 * rest. The numeric ranges are disjoint (events [0, 3e9), reconnects [-3e9, -1], responses
 * below -1e12), and each key names exactly one observation, as the string keys do.
 */
export function obsKey(o: Observation): string | number {
  switch (o.type) {
    case 'EVENT': {
      const s = streamCode(o.stream);
      if (s >= 0 && Number.isInteger(o.id) && o.id >= 0 && o.id < 1e9) return o.id * 3 + s;
      return `E${o.id}/${o.stream ?? ''}`;
    }
    case 'RECONNECT': {
      const s = streamCode(o.stream);
      const c = o.cursor;
      if (s >= 0 && c !== null && Number.isInteger(c) && c >= 0 && c < 1e9) return -(c * 3 + s) - 1;
      return `C${o.cursor ?? '-'}/${o.stream ?? ''}`;
    }
    case 'RESPONSE': {
      const status = STATUS_CODE[o.status];
      const epoch = epochCode(o.epoch);
      // (A stated head is rare: such answers take the string key.)
      if (o.head !== undefined)
        return `R${o.status}/${o.floor ?? '-'}/${o.head}/${o.epoch ?? '-'}/${o.durable ?? '-'}`;
      const f = o.floor;
      const floor = f === undefined ? 0 : Number.isInteger(f) && f >= 0 && f < 1e6 ? f + 1 : -1;
      if (status !== undefined && epoch >= 0 && floor >= 0) {
        const durable = o.durable === undefined ? 0 : o.durable ? 1 : 2;
        return -1e12 - (((floor * 10 + epoch) * 5 + status) * 3 + durable);
      }
      return `R${o.status}/${o.floor ?? '-'}/${o.epoch ?? '-'}/${o.durable ?? '-'}`;
    }
    case 'OPEN':
      return `O${o.status}/${o.epoch ?? '-'}/${o.stream ?? ''}/${o.cursor ?? '-'}`;
    default:
      return o.type;
  }
}

/** A machine snapshot's value as a string: equal strings, equal snapshots. */
export function snapshotKey(s: ClientSnapshot): string {
  const c = s.context;
  return `${String(s.value)}|${c.cursor}|${c.stream}|${c.epoch}|${c.idless}|${c.floor}|${c.outcome}|${c.reason?.text ?? ''}`;
}

const LIMIT = 200_000;
const caches = new WeakMap<ClientMachine, StepCache>();

/**
 * What the memo keeps of one (interned) snapshot, held on the snapshot itself under a symbol of
 * the cache's current generation, as a non-enumerable property (invisible to equality and
 * serialisation): a property read is faster than a `WeakMap` lookup keyed by the snapshot (and
 * adds no ephemeron for the collector to trace). A new generation gets a new symbol.
 */
function heldOn<V>(s: ClientSnapshot, key: symbol, make: () => V): V {
  const held = (s as unknown as Record<symbol, V | undefined>)[key];
  if (held !== undefined) return held;
  const value = make();
  Object.defineProperty(s, key, { value });
  return value;
}

/**
 * The (shared) step cache of `machine`. Snapshots are interned by value, so that each distinct
 * (state, context) is one object; a transition is then looked up by that object's identity and
 * the observation's key, without building the long value key again.
 */
export function stepCache(machine: ClientMachine): StepCache {
  const existing = caches.get(machine);
  if (existing) return existing;
  let canon = new Map<string, ClientSnapshot>();
  let rows = Symbol('step memo row');
  let firedRows = Symbol('fired memo row');
  // Only a fresh snapshot (a miss's result) is interned, once: its key is not worth keeping.
  const intern = (s: ClientSnapshot): ClientSnapshot => {
    const k = snapshotKey(s);
    const c = canon.get(k);
    if (c !== undefined) return c;
    if (canon.size >= LIMIT) {
      canon = new Map();
      rows = Symbol('step memo row');
      firedRows = Symbol('fired memo row');
    }
    canon.set(k, s);
    return s;
  };
  const initial = intern(initialSnapshot(machine));
  const cache: StepCache = {
    machine,
    initial,
    stats: { hits: 0, misses: 0 },
    step(snapshot, observation) {
      return cache.next(cache.entryOf(snapshot), observation).snap;
    },
    entryOf(snapshot) {
      return heldOn(snapshot, rows, () => ({ snap: snapshot, row: new Map() }));
    },
    next(entry, observation) {
      const o = obsKey(observation);
      const hit = entry.row.get(o);
      if (hit !== undefined) {
        cache.stats.hits++;
        return hit;
      }
      cache.stats.misses++;
      const next = cache.entryOf(intern(step(entry.snap, observation, machine)));
      entry.row.set(o, next);
      return next;
    },
    fired(snapshot, observation) {
      const o = obsKey(observation);
      const row = heldOn(snapshot, firedRows, () => new Map<string | number, string | null>());
      const hit = row.get(o);
      if (hit !== undefined) return hit;
      const id = firedTransition(machine, snapshot, observation);
      row.set(o, id);
      return id;
    },
  };
  caches.set(machine, cache);
  return cache;
}
