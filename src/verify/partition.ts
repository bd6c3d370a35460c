/**
 * One partition of the breadth-first search: the states whose fingerprints it owns (all of
 * them when the search runs on one thread; a hash range of them for each worker otherwise).
 * A search is a sequence of rounds, one per depth; in each round a partition
 *
 * 1. loads each state of its level (replaying its moves from the root), judges it (the world's
 *    epilogue, then every claim), and applies every move to it, sending each successor, with
 *    its fingerprint and path, to the partition that owns the fingerprint;
 * 2. merges what it was sent, in path order, keeping each fingerprint it has not seen: the
 *    first path to reach a state, in path order, is the one the single-thread search keeps,
 *    so the states, their counts and the shortest counterexamples do not depend on the number
 *    of partitions.
 */
import type { Claim } from '../../model/claims/index.js';
import type { ClientSnapshot } from '../../model/run.js';
import {
  encodeContext,
  Encoding,
  encodeWorld,
  type EncodeContext,
} from '../../model/verify/abstraction.js';
import { FingerprintSet, fingerprint, fp } from '../../model/verify/fingerprint.js';
import { applyMove, enabled, MOVES, outOfScope, type Spent } from '../../model/verify/moves.js';
import type { Bounds } from '../../model/verify/scope.js';
import { restoreSnapshot, takeSnapshot, type WorldSnapshot } from '../../model/verify/snapshot.js';
import { quiesce } from '../../model/world/commands.js';
import { isTaskPolicy, type WorldConfig } from '../../model/world/config.js';
import type { Subject } from '../../model/world/property.js';
import { brokenConditions } from '../../model/world/validity.js';
import { createWorld, type World } from '../../model/world/world.js';
import {
  bytesOf,
  CandidateList,
  mergeInOrder,
  movesOf,
  PathList,
  type Candidates,
  type Paths,
} from './frontier.js';

/** What a partition searches (a `SearchSpec` without its run-level options). */
export interface PartitionSpec {
  configs: readonly WorldConfig[];
  subject: Subject;
  claims: readonly Claim[];
  bounds: Bounds;
  coverage?: Set<string>;
  checkAbstraction?: boolean;
}

/** A broken claim, at the shallowest state (first in path order) that breaks it. */
export interface Break {
  claim: string;
  why: string;
  depth: number;
  /** The state's path: its root (initial configuration) and moves. */
  root: number;
  moves: number[];
}

/** `true` when break `a` comes before `b`: shallower, or first in path order. */
export function breakBefore(a: Break, b: Break): boolean {
  if (a.depth !== b.depth) return a.depth < b.depth;
  if (a.root !== b.root) return a.root < b.root;
  for (let k = 0; k < a.moves.length; k++)
    if (a.moves[k] !== b.moves[k]) return a.moves[k]! < b.moves[k]!;
  return false;
}

/** What one round does with the level. */
export interface RoundOptions {
  judge: boolean;
  expand: boolean;
  /** Stop judging at the first broken claim (a mutant hunt). */
  stopAtBreak?: boolean;
  /** Called about every 256 states with the successors generated so far. */
  tick?: () => void;
}

/** The owner of a fingerprint among `owners` partitions. */
export function ownerOf(hi: number, owners: number): number {
  return owners === 1 ? 0 : (hi >>> 0) % owners;
}

/** The verdict bits of the ended world (bit i: claim i broke), and the reasons. */
function judgeEnded(
  w: World,
  claims: readonly Claim[],
  applied: Record<string, number> | null,
): { bits: number; whys: string[] } {
  quiesce(w);
  let bits = 0;
  const whys: string[] = [];
  // The conditions of validity, computed once for the claims that read them (as `judge` in
  // model/world/property.ts does), not once per claim.
  // A server that states its head (docs/spec.md#caught-up): NoFalseAlarm and Delivery are
  // judged without proofWithinBudget, whatever the tool's silences (issue 37).
  const options = {
    broken: brokenConditions(
      w,
      w.cfg.head && !isTaskPolicy(w.cfg.policy) ? 'proofWithinBudget' : undefined,
    ),
  };
  for (let i = 0; i < claims.length; i++) {
    const claim = claims[i]!;
    const v = claim.check(w, options);
    if (v.applicable && applied) applied[claim.name] = (applied[claim.name] ?? 0) + 1;
    if (!v.ok) bits |= 1 << i;
    whys.push(v.why);
  }
  return { bits, whys };
}

interface Step {
  snap: WorldSnapshot;
  spent: Spent;
}

export class Partition {
  readonly seen = new FingerprintSet();
  generated = 0;
  /** The largest depth at which this partition kept a state. */
  maxDepth = 0;
  readonly applied: Record<string, number> = {};
  /** Per claim, the first state of this partition that breaks it. */
  readonly breaks = new Map<string, Break>();
  readonly abstractionErrors: string[] = [];
  /** The states of the current depth, in path order. */
  level: Paths = { depth: 0, size: 0, roots: new Int32Array(0), moves: new Uint8Array(0) };
  /** The most bytes the level and the candidates of one round held. */
  peakFrontierBytes = 0;
  peakFrontier = 0;

  private readonly scratch: World;
  private readonly ctxs: EncodeContext[];
  private readonly enc = new Encoding();
  /** What a successor has spent: one object, reset before each move. */
  private readonly spent: Spent = zero();
  private readonly rootSteps = new Map<number, Step>();
  private readonly verdictOf: Map<string, number> | null;
  // The path loaded last: its root, its moves and the world after each of its prefixes.
  private stackRoot = -1;
  private stackMoves: number[] = [];
  private stack: Step[] = [];
  /** The deepest step of the stack that holds a snapshot (the loaded state has none). */
  private stackTop = -1;
  /** What the loaded state has spent. */
  private readonly stateSpent: Spent = zero();

  constructor(
    private readonly spec: PartitionSpec,
    readonly self = 0,
    readonly owners = 1,
  ) {
    const snapIds = new Map<ClientSnapshot, readonly [number, number]>();
    this.ctxs = spec.configs.map((c, i) => encodeContext(i, c, snapIds));
    this.scratch = createWorld(spec.configs[0]!, {
      ...spec.subject,
      ...(spec.coverage ? { coverage: spec.coverage } : {}),
    });
    this.verdictOf = spec.checkAbstraction ? new Map() : null;
  }

  /** The roots this partition owns, as the level of depth 0. */
  roots(): void {
    const list = new CandidateList(0);
    this.spec.configs.forEach((cfg, root) => {
      const w = createWorld(cfg, this.spec.subject);
      encodeWorld(w, this.ctxs[root]!, zero(), this.enc);
      fingerprint(this.enc.buf, this.enc.n);
      if (ownerOf(fp.hi, this.owners) !== this.self) return;
      this.generated++;
      const { hi, lo } = fp;
      if (this.verdictOf) this.recheck(w, hi, lo, 0, root, []);
      list.push(hi, lo, root, [], 0);
    });
    this.merge([list.done()]);
  }

  /**
   * Loads state `i` of the level into the scratch world and returns what it has spent. The
   * stack holds snapshots of the prefixes of its path, not of the state itself: the state is
   * copied only if more than one branch (the judge, each enabled move) starts from it.
   */
  private load(i: number): Spent {
    const { level, spec, scratch } = this;
    const d = level.depth;
    const root = level.roots[i]!;
    let k = 0; // steps of the stack still valid
    if (root === this.stackRoot) {
      k = 1;
      while (k < d && k <= this.stackTop && this.stackMoves[k - 1] === level.moves[i * d + k - 1])
        k++;
    }
    const cfg = spec.configs[root]!;
    scratch.cfg = cfg;
    scratch.policy = spec.subject.policy ?? cfg.policy;
    if (k === 0) {
      let step = this.rootSteps.get(root);
      if (step === undefined) {
        step = { snap: takeSnapshot(createWorld(cfg, spec.subject)), spent: zero() };
        this.rootSteps.set(root, step);
      }
      this.stackRoot = root;
      this.stack[0] = step;
      k = 1;
    }
    if (d === 0) {
      this.stackTop = 0;
      restoreSnapshot(scratch, this.stack[0]!.snap);
      return this.stack[0]!.spent;
    }
    // The prefixes of the path not on the stack yet, each one a move from the one below it.
    for (; k < d; k++) {
      const prev = this.stack[k - 1]!;
      restoreSnapshot(scratch, prev.snap);
      const spent = { ...prev.spent };
      const m = level.moves[i * d + k - 1]!;
      applyMove(scratch, m, spent);
      this.stackMoves[k - 1] = m;
      this.stack[k] = { snap: takeSnapshot(scratch), spent };
    }
    this.stackTop = d - 1;
    // The state itself: its last move, from the prefix below it.
    const prev = this.stack[d - 1]!;
    restoreSnapshot(scratch, prev.snap);
    const spent = this.stateSpent;
    spent.disconnects = prev.spent.disconnects;
    spent.otherEmits = prev.spent.otherEmits;
    const m = level.moves[i * d + d - 1]!;
    applyMove(scratch, m, spent);
    this.stackMoves[d - 1] = m;
    return spent;
  }

  /**
   * One round over the level; returns the successors for each owner (index `self`: its own).
   * Each state is judged, then each enabled move is applied to it, each branch on a fresh copy
   * of the state: the last branch takes the copy itself, and a state with one branch is not
   * copied at all.
   */
  round(opts: RoundOptions): Candidates[] {
    const { level, spec, scratch } = this;
    const d = level.depth;
    const out = Array.from({ length: this.owners }, () => new CandidateList(d + 1));
    const moves: number[] = [];
    let candidateBytes = 0;
    for (let i = 0; i < level.size; i++) {
      const stateSpent = this.load(i);
      const disconnects = stateSpent.disconnects;
      const otherEmits = stateSpent.otherEmits;
      // The branches, read from the state before any of them changes it.
      moves.length = 0;
      if (opts.expand)
        for (let m = 0; m < MOVES.length; m++)
          if (enabled(scratch, m, spec.bounds, stateSpent)) moves.push(m);
      const branches = moves.length + (opts.judge ? 1 : 0);
      const snap = branches > 1 ? takeSnapshot(scratch) : null;
      let taken = 0; // branches that have started (the first one runs on the loaded state)
      const next = () => {
        if (taken > 0) restoreSnapshot(scratch, snap!, taken === branches - 1);
        taken++;
      };
      if (opts.judge) {
        next();
        const broke = this.judge(i);
        if (broke && opts.stopAtBreak) break;
      }
      const root = level.roots[i]!;
      const ctx = this.ctxs[root]!;
      for (const m of moves) {
        next();
        const spent = this.spent;
        spent.disconnects = disconnects;
        spent.otherEmits = otherEmits;
        if (applyMove(scratch, m, spent) === null) continue;
        if (outOfScope(scratch, spec.bounds)) continue;
        this.generated++;
        encodeWorld(scratch, ctx, spent, this.enc);
        fingerprint(this.enc.buf, this.enc.n);
        const { hi, lo } = fp;
        if (this.verdictOf) this.recheck(scratch, hi, lo, d + 1, root, [...this.stackMoves, m]);
        out[ownerOf(hi, this.owners)]!.push(hi, lo, root, this.stackMoves, m);
      }
      if ((i & 255) === 255) opts.tick?.();
    }
    const lists = out.map((l) => l.done());
    for (const l of lists) candidateBytes += bytesOf(l);
    this.peakFrontierBytes = Math.max(this.peakFrontierBytes, bytesOf(level) + candidateBytes);
    return lists;
  }

  /** Merges the successors sent to this partition into the next level. */
  merge(inputs: readonly Candidates[]): void {
    const depth = inputs[0]?.depth ?? this.level.depth + 1;
    const next = new PathList(depth);
    mergeInOrder(inputs, (list, i) => {
      if (this.seen.add(list.hi[i]!, list.lo[i]!)) next.copy(list, i);
    });
    this.level = next.done();
    if (this.level.size > 0) this.maxDepth = depth;
    this.peakFrontier = Math.max(this.peakFrontier, this.level.size);
  }

  /** Judges state `i` of the level (loaded in the scratch world); `true` if a claim broke. */
  private judge(i: number): boolean {
    const { bits, whys } = judgeEnded(this.scratch, this.spec.claims, this.applied);
    if (bits === 0) return false;
    let first = false;
    this.spec.claims.forEach((claim, c) => {
      if ((bits & (1 << c)) === 0 || this.breaks.has(claim.name)) return;
      first = true;
      this.breaks.set(claim.name, {
        claim: claim.name,
        why: whys[c]!,
        depth: this.level.depth,
        root: this.level.roots[i]!,
        moves: movesOf(this.level, i),
      });
    });
    return first;
  }

  // Check mode: every generated state is judged, and must agree with the first state that had
  // its encoding (the one the search keeps, since states are generated in path order).
  private recheck(w: World, hi: number, lo: number, depth: number, root: number, moves: number[]) {
    const { bits } = judgeEnded(w, this.spec.claims, null);
    const key = `${hi}:${lo}`;
    const first = this.verdictOf!.get(key);
    if (first === undefined) this.verdictOf!.set(key, bits);
    else if (first !== bits && this.abstractionErrors.length < 20)
      this.abstractionErrors.push(
        `the state at depth ${depth} (root ${root}, moves ${moves.map((m) => MOVES[m]).join(',')}) shares its encoding with an earlier state but its verdicts differ (${bits} vs ${first})`,
      );
  }
}

const zero = (): Spent => ({ disconnects: 0, otherEmits: 0 });
