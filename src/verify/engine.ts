/**
 * The breadth-first explorer behind `mcp-resumption verify`, in the manner of TLC: from every
 * initial configuration of a scope it applies every move (model/verify/moves.ts) to every
 * reachable state, level by level, keeps one fingerprint per distinct state
 * (model/verify/abstraction.ts), and checks the claims on every distinct state: each state is
 * ended with the world's epilogue (`quiesce`: release the app, let the tool finish, let time
 * pass) and every claim judges the ended world, since each claim is about how a run ends.
 *
 * The search is deterministic: the same scope gives the same counts, in the same order, on
 * every run. A claim that breaks is recorded at the first (so shallowest) state that breaks
 * it: its path from the root is a shortest counterexample in moves.
 */
import type { Claim } from '../../model/claims/index.js';
import type { ClientSnapshot } from '../../model/run.js';
import { encodeContext, encodeWorld, type EncodeContext } from '../../model/verify/abstraction.js';
import { FingerprintSet, fingerprint, fp } from '../../model/verify/fingerprint.js';
import { applyMove, enabled, MOVES, outOfScope, type Spent } from '../../model/verify/moves.js';
import type { Bounds } from '../../model/verify/scope.js';
import { restoreSnapshot, takeSnapshot, type WorldSnapshot } from '../../model/verify/snapshot.js';
import { quiesce } from '../../model/world/commands.js';
import type { WorldConfig } from '../../model/world/config.js';
import type { Subject } from '../../model/world/property.js';
import { createWorld, type World } from '../../model/world/world.js';

/** What to search. */
export interface SearchSpec {
  /** The initial configurations (each one a root of the search). */
  configs: readonly WorldConfig[];
  /** The client and server that run (the model's client and the declared server by default). */
  subject: Subject;
  claims: readonly Claim[];
  bounds: Bounds;
  /** Stop at the first broken claim (a mutant hunt). */
  stopAtFirstBreak?: boolean;
  /** Explore no level deeper than this (moves from a root). */
  maxDepth?: number;
  /** Give up past this many distinct states (the report says the search is incomplete). */
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
  /** States waiting in the next level. */
  queued: number;
  elapsedMs: number;
}

/** A broken claim, at the shallowest state that breaks it. */
export interface Break {
  claim: string;
  why: string;
  /** The state's id (its path is kept in the search's parent arrays). */
  state: number;
  depth: number;
}

/** The outcome of a search. */
export interface SearchResult extends SearchProgress {
  /** The largest depth at which a distinct state was found. */
  maxDepth: number;
  /** Every state of the scope was explored. */
  complete: boolean;
  /** Per claim: distinct states in which it applied. */
  applied: Record<string, number>;
  breaks: Break[];
  /** Largest number of states held in one level (the frontier). */
  peakFrontier: number;
  /** Bytes held by the fingerprint set and the parent pointers. */
  bytes: number;
  /** States whose encoding matched another's while their verdicts differed (check mode). */
  abstractionErrors: string[];
  /** Walks back from a state to its root: the root's index and the moves, in order. */
  pathOf(state: number): { root: number; moves: number[] };
}

interface Node {
  id: number;
  root: number;
  snap: WorldSnapshot;
  spent: Spent;
}

/** Growable parent pointers: for each state, its parent (or -1 - root) and the move taken. */
class Parents {
  parent = new Int32Array(1 << 12);
  move = new Uint8Array(1 << 12);
  size = 0;
  add(parent: number, move: number): number {
    if (this.size === this.parent.length) {
      const p = new Int32Array(this.size * 2);
      p.set(this.parent);
      this.parent = p;
      const m = new Uint8Array(this.size * 2);
      m.set(this.move);
      this.move = m;
    }
    this.parent[this.size] = parent;
    this.move[this.size] = move;
    return this.size++;
  }
  get bytes(): number {
    return this.parent.byteLength + this.move.byteLength;
  }
}

/** The verdict bits of the ended world (bit i: claim i broke), and the first reason. */
function judgeEnded(
  w: World,
  claims: readonly Claim[],
  applied: Record<string, number>,
): { bits: number; whys: string[] } {
  quiesce(w);
  let bits = 0;
  const whys: string[] = [];
  claims.forEach((claim, i) => {
    const v = claim.check(w);
    if (v.applicable) applied[claim.name] = (applied[claim.name] ?? 0) + 1;
    if (!v.ok) bits |= 1 << i;
    whys.push(v.why);
  });
  return { bits, whys };
}

/** Runs the search. */
export function search(spec: SearchSpec): SearchResult {
  const t0 = performance.now();
  const seen = new FingerprintSet();
  const parents = new Parents();
  const snapIds = new Map<ClientSnapshot, number>();
  const applied: Record<string, number> = {};
  const breaks: Break[] = [];
  const broken = new Set<string>();
  const abstractionErrors: string[] = [];
  const verdictOf = spec.checkAbstraction ? new Map<string, number>() : null;
  const enc: number[] = [];
  const ctxs: EncodeContext[] = spec.configs.map((c, i) => encodeContext(i, c, snapIds));
  const scratch = createWorld(spec.configs[0]!, {
    ...spec.subject,
    ...(spec.coverage ? { coverage: spec.coverage } : {}),
  });
  let generated = 0;
  let depth = 0;
  let maxDepth = 0;
  let peakFrontier = 0;
  let stop = false;
  let complete = true;
  let level: Node[] = [];
  let next: Node[] = [];
  let lastProgress = t0;

  const progress = (): SearchProgress => ({
    distinct: seen.size,
    generated,
    depth,
    queued: next.length,
    elapsedMs: performance.now() - t0,
  });
  const load = (n: Node) => {
    const cfg = spec.configs[n.root]!;
    scratch.cfg = cfg;
    scratch.policy = spec.subject.policy ?? cfg.policy;
    restoreSnapshot(scratch, n.snap);
  };
  // Judges a newly found state; records the claims it breaks.
  const judge = (n: Node) => {
    load(n);
    const { bits, whys } = judgeEnded(scratch, spec.claims, applied);
    if (verdictOf) verdictOf.set(`${fp.hi}:${fp.lo}`, bits);
    spec.claims.forEach((claim, i) => {
      if ((bits & (1 << i)) === 0 || broken.has(claim.name)) return;
      broken.add(claim.name);
      breaks.push({ claim: claim.name, why: whys[i]!, state: n.id, depth });
      if (spec.stopAtFirstBreak) stop = true;
    });
  };
  // A state found again: in check mode, its verdicts must be its twin's.
  const recheck = (n: Node) => {
    const key = `${fp.hi}:${fp.lo}`;
    load(n);
    const { bits } = judgeEnded(scratch, spec.claims, {});
    const first = verdictOf!.get(key);
    if (first !== undefined && first !== bits && abstractionErrors.length < 20)
      abstractionErrors.push(
        `state ${parents.size} (depth ${depth}) shares its encoding with an earlier state but its verdicts differ (${bits} vs ${first})`,
      );
  };
  const discover = (n: Node, parent: number, move: number): boolean => {
    if (!seen.add()) return false;
    n.id = parents.add(parent, move);
    return true;
  };

  // The roots: one world per configuration, as `createWorld` makes it.
  spec.configs.forEach((cfg, root) => {
    if (stop) return;
    const w = createWorld(cfg, spec.subject);
    encodeWorld(w, ctxs[root]!, [0, 0], enc);
    fingerprint(enc);
    generated++;
    const n: Node = {
      id: -1,
      root,
      snap: takeSnapshot(w),
      spent: { disconnects: 0, otherEmits: 0 },
    };
    if (!discover(n, -1 - root, 0)) return;
    level.push(n);
    judge(n);
  });

  while (level.length > 0 && !stop && depth < (spec.maxDepth ?? Infinity)) {
    peakFrontier = Math.max(peakFrontier, level.length);
    depth++;
    next = [];
    for (const n of level) {
      if (stop) break;
      for (let m = 0; m < MOVES.length && !stop; m++) {
        load(n);
        if (!enabled(scratch, m, spec.bounds, n.spent)) continue;
        const spent = { ...n.spent };
        if (applyMove(scratch, m, spent) === null) continue;
        if (outOfScope(scratch, spec.bounds)) continue;
        generated++;
        encodeWorld(scratch, ctxs[n.root]!, [spent.disconnects, spent.otherEmits], enc);
        fingerprint(enc);
        const child: Node = { id: -1, root: n.root, snap: takeSnapshot(scratch), spent };
        if (!discover(child, n.id, m)) {
          if (verdictOf) recheck(child);
          continue;
        }
        maxDepth = depth;
        next.push(child);
        judge(child);
        if (spec.maxStates !== undefined && seen.size >= spec.maxStates) {
          stop = true;
          complete = false;
        }
        if ((generated & 255) === 0 && spec.onProgress) {
          const now = performance.now();
          if (now - lastProgress >= 1_000) {
            lastProgress = now;
            spec.onProgress(progress());
          }
        }
      }
    }
    level = next;
  }
  if (stop && level.length > 0 && !spec.stopAtFirstBreak) complete = false;
  const p = progress();
  return {
    ...p,
    depth: maxDepth,
    maxDepth,
    complete,
    applied,
    breaks,
    peakFrontier,
    bytes: seen.bytes + parents.bytes,
    abstractionErrors,
    pathOf(state: number) {
      const moves: number[] = [];
      let s = state;
      while (parents.parent[s]! >= 0) {
        moves.push(parents.move[s]!);
        s = parents.parent[s]!;
      }
      return { root: -1 - parents.parent[s]!, moves: moves.reverse() };
    },
  };
}
