/**
 * Ground truth and verdicts: what a resumed stream owed against what arrived.
 */
import type { CellVerdict, Delivered, GroundTruth, ReconnectObservationRecord } from '../types.js';

/** `tag#index` of a message (`tag#result` for the result). */
export function keyOf(d: Pick<Delivered, 'tag' | 'index'>): string {
  return `${d.tag}#${d.index}`;
}

/** The messages call `tag` owes after message `after`: `after+1 .. n`, then the result. */
export function owed(tag: string, after: number, n: number): Delivered[] {
  const out: Delivered[] = [];
  for (let i = after + 1; i <= n; i++) out.push({ tag, index: i });
  out.push({ tag, index: 'result' });
  return out;
}

/**
 * Compares what arrived on the resumed stream(s) with what was owed. `own` are the tags of the
 * calls the resumed stream may carry; anything else is foreign (another stream or session).
 */
export function groundTruth(
  expected: Delivered[],
  got: Delivered[],
  own: Set<string>,
): GroundTruth {
  const foreign = got.filter((d) => !own.has(d.tag));
  const mine = got.filter((d) => own.has(d.tag));
  const owedKeys = expected.map(keyOf);
  const owedSet = new Set(owedKeys);
  const seen = new Map<string, number>();
  for (const d of mine) seen.set(keyOf(d), (seen.get(keyOf(d)) ?? 0) + 1);
  const lost = expected.filter((d) => !seen.has(keyOf(d)));
  const duplicated: Delivered[] = [];
  const dupKeys = new Set<string>();
  for (const d of mine) {
    const k = keyOf(d);
    if ((!owedSet.has(k) || (seen.get(k) ?? 0) > 1) && !dupKeys.has(k)) {
      dupKeys.add(k);
      duplicated.push({ tag: d.tag, index: d.index });
    }
  }
  const order = mine.map(keyOf).filter((k) => owedSet.has(k));
  const firstSeen = order.filter((k, i) => order.indexOf(k) === i);
  const expectedOrder = owedKeys.filter((k) => firstSeen.includes(k));
  const reordered = firstSeen.some((k, i) => k !== expectedOrder[i]);
  const resultArrived = mine.some((d) => d.index === 'result' && owedSet.has(keyOf(d)));
  return { expected, lost, duplicated, reordered, foreign, resultArrived };
}

/** The verdict of a resumption: the answer's status first, then what arrived. */
export function verdictOf(rec: ReconnectObservationRecord, truth: GroundTruth): CellVerdict {
  if (rec.status === null) return 'hang';
  if (rec.status !== 200) return 'rejected';
  if (truth.foreign.length > 0) return 'leak';
  if (truth.lost.length > 0 || truth.duplicated.length > 0 || truth.reordered) return 'silent loss';
  return 'honored';
}

function list(ds: Delivered[], max = 6): string {
  const keys = ds.map((d) => (d.index === 'result' ? `${d.tag}:result` : keyOf(d)));
  return keys.length <= max ? keys.join(',') : `${keys.slice(0, max).join(',')},…(${keys.length})`;
}

/** The observed answer in words: status, then arrived against owed. */
export function describe(rec: ReconnectObservationRecord, truth: GroundTruth): string {
  if (rec.status === null) return `no answer within the bound (${rec.ending})`;
  if (rec.status !== 200) return `${rec.status}`;
  const parts = [`200`];
  const owedCount = truth.expected.length;
  const got = owedCount - truth.lost.length;
  parts.push(`${got}/${owedCount} owed arrived`);
  if (truth.lost.length) parts.push(`lost ${list(truth.lost)}`);
  if (truth.duplicated.length) parts.push(`dup ${list(truth.duplicated)}`);
  if (truth.reordered) parts.push('reordered');
  if (truth.foreign.length) parts.push(`foreign ${list(truth.foreign)}`);
  if (!truth.resultArrived && owedCount > 0) parts.push('no result');
  parts.push(`stream ${rec.ending}`);
  return parts.join(', ');
}
