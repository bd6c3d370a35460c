/**
 * A 64-bit fingerprint of an encoded state (two 32-bit MurmurHash3-style lanes), and a set of
 * fingerprints in two flat typed arrays with open addressing: 8 bytes a slot, at most half
 * full, so about 16 bytes a state. As in TLC, two distinct states that share a fingerprint
 * would be merged; with n states the chance of any such collision is about n^2 / 2^65
 * (for ten million states, about 3 in a million).
 */

/** Fingerprint lanes of the last {@link fingerprint} call (no allocation in the hot loop). */
export const fp = { hi: 0, lo: 0 };

function mix(h: number, k: number, c1: number, c2: number): number {
  k = Math.imul(k, c1);
  k = (k << 15) | (k >>> 17);
  k = Math.imul(k, c2);
  h ^= k;
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

function finish(a: number, b: number, n: number): void {
  fp.hi = fmix(a ^ n);
  fp.lo = fmix(b ^ Math.imul(n, 0x27d4eb2f)) || 1; // 0,0 marks an empty slot
}

/**
 * Fingerprints the integers `xs[0..n)` into {@link fp} (each taken as a 32-bit integer, as
 * `x | 0` does; an `Int32Array` holds them so already).
 */
export function fingerprint(xs: ArrayLike<number>, n = xs.length): void {
  let a = 0x9747b28c;
  let b = 0x2545f491;
  for (let i = 0; i < n; i++) {
    const x = xs[i]! | 0;
    a = mix(a, x, 0xcc9e2d51, 0x1b873593);
    b = mix(b, x, 0x85ebca77, 0xc2b2ae3d);
  }
  finish(a, b, n);
}

/**
 * Fingerprints the character codes of `text` into {@link fp}: the same lanes as
 * {@link fingerprint} of the list of its codes, without building that list.
 */
export function fingerprintString(text: string): void {
  let a = 0x9747b28c;
  let b = 0x2545f491;
  for (let i = 0; i < text.length; i++) {
    const x = text.charCodeAt(i);
    a = mix(a, x, 0xcc9e2d51, 0x1b873593);
    b = mix(b, x, 0x85ebca77, 0xc2b2ae3d);
  }
  finish(a, b, text.length);
}

/** A 64-bit hash of a string, as two 32-bit lanes (the same on every thread and run). */
export function hashString(text: string): readonly [number, number] {
  fingerprintString(text);
  return [fp.hi, fp.lo];
}

/** A set of 64-bit fingerprints. */
export class FingerprintSet {
  private hi: Uint32Array;
  private lo: Uint32Array;
  private mask: number;
  /** Fingerprints in the set. */
  size = 0;

  constructor(capacity = 1 << 16) {
    let n = 1;
    while (n < capacity * 2) n *= 2;
    this.hi = new Uint32Array(n);
    this.lo = new Uint32Array(n);
    this.mask = n - 1;
  }

  /** Bytes held by the table. */
  get bytes(): number {
    return this.hi.byteLength + this.lo.byteLength;
  }

  /** Adds the fingerprint in {@link fp}; `true` when it was not there. */
  add(hi = fp.hi, lo = fp.lo): boolean {
    let i = (hi ^ Math.imul(lo, 0x9e3779b1)) & this.mask;
    for (;;) {
      const l = this.lo[i]!;
      if (l === 0) break;
      if (l === lo && this.hi[i] === hi) return false;
      i = (i + 1) & this.mask;
    }
    this.hi[i] = hi;
    this.lo[i] = lo;
    this.size++;
    if (this.size * 2 > this.mask) this.grow();
    return true;
  }

  private grow(): void {
    const { hi, lo } = this;
    const n = (this.mask + 1) * 2;
    this.hi = new Uint32Array(n);
    this.lo = new Uint32Array(n);
    this.mask = n - 1;
    this.size = 0;
    for (let i = 0; i < hi.length; i++) if (lo[i] !== 0) this.add(hi[i], lo[i]);
  }
}
