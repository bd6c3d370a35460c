/**
 * The frontier of the breadth-first search, held compactly: a state of depth d is its root
 * (the index of its initial configuration) and the d moves that reach it from there, 4 + d
 * bytes, instead of a copy of its world. The world is rebuilt on demand by replaying the moves
 * (see `Partition.load`); a level is kept in the order of its paths, so consecutive states
 * share most of their path and the replay is mostly one move per state.
 *
 * The same lists carry the successors a worker forwards to the worker that owns them, with
 * their fingerprints, in transferable typed arrays.
 */

/** States of one depth, in path order: `roots[i]` and `moves[i*depth .. (i+1)*depth)`. */
export interface Paths {
  depth: number;
  size: number;
  roots: Int32Array;
  moves: Uint8Array;
}

/** Successors found in one round, with their fingerprints (`hi[i]`, `lo[i]`). */
export interface Candidates extends Paths {
  hi: Uint32Array;
  lo: Uint32Array;
}

/** Appends candidates of one depth, in the order they are found. */
export class CandidateList {
  size = 0;
  private roots = new Int32Array(64);
  private moves: Uint8Array;
  private hi = new Uint32Array(64);
  private lo = new Uint32Array(64);
  constructor(readonly depth: number) {
    this.moves = new Uint8Array(64 * Math.max(depth, 1));
  }

  /** Appends the state reached from `root` by `prefix[0..depth-1)` then `move`. */
  push(hi: number, lo: number, root: number, prefix: ArrayLike<number>, move: number): void {
    if (this.size === this.roots.length) this.grow();
    const i = this.size++;
    this.hi[i] = hi;
    this.lo[i] = lo;
    this.roots[i] = root;
    const d = this.depth;
    if (d === 0) return;
    const at = i * d;
    for (let k = 0; k < d - 1; k++) this.moves[at + k] = prefix[k]!;
    this.moves[at + d - 1] = move;
  }

  private grow(): void {
    const n = this.roots.length * 2;
    const roots = new Int32Array(n);
    roots.set(this.roots);
    this.roots = roots;
    const hi = new Uint32Array(n);
    hi.set(this.hi);
    this.hi = hi;
    const lo = new Uint32Array(n);
    lo.set(this.lo);
    this.lo = lo;
    const moves = new Uint8Array(n * Math.max(this.depth, 1));
    moves.set(this.moves);
    this.moves = moves;
  }

  /** The list, trimmed to its size (the arrays are its own: transferable). */
  done(): Candidates {
    const n = this.size;
    return {
      depth: this.depth,
      size: n,
      roots: this.roots.slice(0, n),
      moves: this.moves.slice(0, n * this.depth),
      hi: this.hi.slice(0, n),
      lo: this.lo.slice(0, n),
    };
  }
}

/** Bytes held by a list of paths (and fingerprints). */
export function bytesOf(p: Paths | Candidates): number {
  const c = p as Partial<Candidates>;
  return (
    p.roots.byteLength + p.moves.byteLength + (c.hi?.byteLength ?? 0) + (c.lo?.byteLength ?? 0)
  );
}

/** Orders state `i` of `a` against state `j` of `b` (same depth) by root, then moves. */
export function comparePaths(a: Paths, i: number, b: Paths, j: number): number {
  const r = a.roots[i]! - b.roots[j]!;
  if (r !== 0) return r;
  const d = a.depth;
  for (let k = 0; k < d; k++) {
    const x = a.moves[i * d + k]! - b.moves[j * d + k]!;
    if (x !== 0) return x;
  }
  return 0;
}

/** The moves of state `i` of `p`. */
export function movesOf(p: Paths, i: number): number[] {
  return Array.from(p.moves.subarray(i * p.depth, (i + 1) * p.depth));
}

/**
 * Visits the candidates of several lists (each in path order) in path order: the k-way
 * merge that gives every owner the single-thread order whatever the number of workers.
 */
export function mergeInOrder(
  lists: readonly Candidates[],
  visit: (list: Candidates, i: number) => void,
): void {
  if (lists.length === 1) {
    // One thread: its list is already in path order.
    const list = lists[0]!;
    for (let i = 0; i < list.size; i++) visit(list, i);
    return;
  }
  const at = lists.map(() => 0);
  for (;;) {
    let best = -1;
    for (let l = 0; l < lists.length; l++) {
      if (at[l]! >= lists[l]!.size) continue;
      if (best < 0 || comparePaths(lists[l]!, at[l]!, lists[best]!, at[best]!) < 0) best = l;
    }
    if (best < 0) return;
    visit(lists[best]!, at[best]!);
    at[best]!++;
  }
}

/** Builds a level from the candidates `keep` accepts, in their order. */
export class PathList {
  size = 0;
  private roots = new Int32Array(64);
  private moves: Uint8Array;
  constructor(readonly depth: number) {
    this.moves = new Uint8Array(64 * Math.max(depth, 1));
  }
  /** Appends state `i` of `from`. */
  copy(from: Paths, i: number): void {
    if (this.size === this.roots.length) {
      const roots = new Int32Array(this.size * 2);
      roots.set(this.roots);
      this.roots = roots;
      const moves = new Uint8Array(this.size * 2 * Math.max(this.depth, 1));
      moves.set(this.moves);
      this.moves = moves;
    }
    const d = this.depth;
    this.roots[this.size] = from.roots[i]!;
    // Byte by byte: a path is a few bytes, and a subarray view per state costs more.
    const src = from.moves;
    const at = i * d;
    const to = this.size * d;
    for (let k = 0; k < d; k++) this.moves[to + k] = src[at + k]!;
    this.size++;
  }
  /** The level (trimmed). */
  done(): Paths {
    return {
      depth: this.depth,
      size: this.size,
      roots: this.roots.slice(0, this.size),
      moves: this.moves.slice(0, this.size * this.depth),
    };
  }
}
