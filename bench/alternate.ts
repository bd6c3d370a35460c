/**
 * Ratios that hold on a noisy machine: the baseline and the subject are measured in
 * alternating slices (baseline, subject, baseline, subject, ...), each pair gives one ratio,
 * and the figure is the median ratio with its spread. A burst of load from elsewhere then hits
 * one pair, not the whole of one side. Targets are judged on the median.
 */

/** What one slice did: units of work (runs, lines, states) in so many seconds. */
export interface Slice {
  units: number;
  secs: number;
}

/** The pairs of an alternation and their ratios. */
export interface Alternation {
  ratios: number[];
  median: number;
  min: number;
  max: number;
  baseline: Slice[];
  subject: Slice[];
}

/** Pairs per alternation: `BENCH_PAIRS` (at least 5), else 5. */
export function pairsWanted(): number {
  const raw = process.env['BENCH_PAIRS'];
  const n = raw === undefined ? 5 : Number(raw);
  if (!Number.isSafeInteger(n) || n < 5) throw new Error(`BENCH_PAIRS must be >= 5, got ${raw}`);
  return n;
}

/** Units per second of a slice. */
export const rateOf = (s: Slice): number => s.units / Math.max(s.secs, 1e-9);

/** The median of `xs` (the mean of the two middle values for an even count). */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/**
 * Runs `baseline` and `subject` alternately, `pairs` times, and returns per pair
 * `ratio(baseline rate, subject rate)`.
 */
export async function alternate(
  pairs: number,
  baseline: (pair: number) => Slice | Promise<Slice>,
  subject: (pair: number) => Slice | Promise<Slice>,
  ratio: (baselineRate: number, subjectRate: number) => number,
  log?: (line: string) => void,
): Promise<Alternation> {
  const b: Slice[] = [];
  const s: Slice[] = [];
  for (let i = 0; i < pairs; i++) {
    b.push(await baseline(i));
    s.push(await subject(i));
    log?.(`pair ${i + 1}/${pairs}: ratio ${ratio(rateOf(b[i]!), rateOf(s[i]!)).toFixed(3)}`);
  }
  return pairUp(b, s, ratio);
}

/** The alternation of slices measured in turn (`baseline[i]` just before `subject[i]`). */
export function pairUp(
  baseline: Slice[],
  subject: Slice[],
  ratio: (baselineRate: number, subjectRate: number) => number,
): Alternation {
  const ratios = baseline.map((b, i) => ratio(rateOf(b), rateOf(subject[i]!)));
  return {
    ratios,
    median: median(ratios),
    min: Math.min(...ratios),
    max: Math.max(...ratios),
    baseline,
    subject,
  };
}

/** `median 4.21 (4.02-4.60 over 5 pairs)`, with `digits` decimals and a unit suffix. */
export function spread(a: Alternation, digits = 2, unit = ''): string {
  const f = (x: number) => `${x.toFixed(digits)}${unit}`;
  return `median ${f(a.median)} (${f(a.min)}-${f(a.max)} over ${a.ratios.length} pairs)`;
}

/** The median rate of a side, for the absolute figures printed beside the ratio. */
export function medianRate(slices: readonly Slice[]): number {
  return median(slices.map(rateOf));
}
