/**
 * The breadth-first explorer behind `mcp-resumption verify`, in the manner of TLC: from every
 * initial configuration of a scope it applies every move (model/verify/moves.ts) to every
 * reachable state, level by level, keeps one fingerprint per distinct state
 * (model/verify/abstraction.ts), and checks the claims on every distinct state: each state is
 * ended with the world's epilogue (`quiesce`: release the app, let the tool finish, let time
 * pass) and every claim judges the ended world, since each claim is about how a run ends.
 *
 * The search is deterministic: the same scope gives the same counts, in the same order, on
 * every run and with any number of workers. A claim that breaks is recorded at the first (so
 * shallowest) state that breaks it: its path from the root is a shortest counterexample in
 * moves. The level-by-level work is in src/verify/partition.ts; on several threads
 * (src/verify/parallel.ts) each worker owns a range of fingerprints.
 */
import type { Claim } from '../../model/claims/index.js';
import type { Bounds } from '../../model/verify/scope.js';
import type { WorldConfig } from '../../model/world/config.js';
import type { Subject } from '../../model/world/property.js';
import { Partition, type Break } from './partition.js';

export type { Break } from './partition.js';

/** What to search. */
export interface SearchSpec {
  /** The initial configurations (each one a root of the search). */
  configs: readonly WorldConfig[];
  /** The client and server that run (the model's client and the declared server by default). */
  subject: Subject;
  claims: readonly Claim[];
  bounds: Bounds;
  /** Stop at the first depth where a claim breaks (a mutant hunt). */
  stopAtFirstBreak?: boolean;
  /** Explore no level deeper than this (moves from a root). */
  maxDepth?: number;
  /**
   * Give up once this many distinct states are found (the report says the search is
   * incomplete); the level that passes the limit is still judged, not expanded.
   */
  maxStates?: number;
  /** Record the machine transitions taken (moves and epilogues). */
  coverage?: Set<string>;
  /** Called about once a second. */
  onProgress?: (p: SearchProgress) => void;
  /** Checks the abstraction: every generated state is judged, and must agree with its twin. */
  checkAbstraction?: boolean;
}

/** Counters of a search, as TLC prints them. */
export interface SearchProgress {
  distinct: number;
  generated: number;
  /** The depth of the level being explored (moves from a root). */
  depth: number;
  /** States waiting in the level being explored. */
  queued: number;
  elapsedMs: number;
}

/** The outcome of a search. */
export interface SearchResult extends SearchProgress {
  /** The largest depth at which a distinct state was found. */
  maxDepth: number;
  /** Every state of the scope was explored. */
  complete: boolean;
  /** Per claim: distinct states in which it applied. */
  applied: Record<string, number>;
  /** Per broken claim, its first (shallowest, then first in path order) broken state. */
  breaks: Break[];
  /** Largest number of states held in one level (the frontier). */
  peakFrontier: number;
  /** Bytes held by the fingerprint set and the largest frontier (paths and candidates). */
  bytes: number;
  /** States whose encoding matched another's while their verdicts differed (check mode). */
  abstractionErrors: string[];
  /** Worker threads the search ran on (1: this thread). */
  workers: number;
}

/** Runs the search on this thread. */
export function search(spec: SearchSpec): SearchResult {
  const t0 = performance.now();
  const p = new Partition(spec);
  let lastProgress = t0;
  const progress = (): SearchProgress => ({
    distinct: p.seen.size,
    generated: p.generated,
    depth: p.level.depth,
    queued: p.level.size,
    elapsedMs: performance.now() - t0,
  });
  const tick = spec.onProgress
    ? () => {
        const now = performance.now();
        if (now - lastProgress < 1_000) return;
        lastProgress = now;
        spec.onProgress!(progress());
      }
    : undefined;
  p.roots();
  let complete = true;
  while (p.level.size > 0) {
    const full = spec.maxStates !== undefined && p.seen.size >= spec.maxStates;
    if (full) complete = false;
    const last = full || p.level.depth >= (spec.maxDepth ?? Infinity);
    if (spec.stopAtFirstBreak) {
      // A mutant hunt judges a whole level before it expands it: it stops at the first one.
      p.round({ judge: true, expand: false, stopAtBreak: true, ...(tick ? { tick } : {}) });
      if (p.breaks.size > 0 || last) break;
      p.merge(p.round({ judge: false, expand: true, ...(tick ? { tick } : {}) }));
    } else {
      const out = p.round({ judge: true, expand: !last, ...(tick ? { tick } : {}) });
      if (last) break;
      p.merge(out);
    }
  }
  return {
    ...progress(),
    depth: p.maxDepth,
    maxDepth: p.maxDepth,
    complete,
    applied: p.applied,
    breaks: [...p.breaks.values()],
    peakFrontier: p.peakFrontier,
    bytes: p.seen.bytes + p.peakFrontierBytes,
    abstractionErrors: p.abstractionErrors,
    workers: 1,
  };
}
