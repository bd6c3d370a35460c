/**
 * Reading sequence numbers (and the stream) out of SSE event ids: the guard can only prove a
 * resumption from ids it can read.
 */
import type { IdReader } from './guard-options.js';

/**
 * The default id reader: a {@link ContinuityEventStore} id (`<epoch>-s<k>-<seq>`), or a plain
 * decimal id.
 */
export function defaultIdReader(id: string): { seq: number; stream?: string } | null {
  // A plain decimal id (read on every event of such a stream) is read in one pass; it needs no
  // `-`, so it is never a store id.
  const seq = decimal(id);
  if (seq >= 0) return { seq };
  return readStoreId(id);
}

/** The value of `id` when it is `^\d{1,15}$` (exact: below 2^53), else -1; without a regular expression. */
function decimal(id: string): number {
  if (id.length === 0 || id.length > 15) return -1;
  let n = 0;
  for (let i = 0; i < id.length; i++) {
    const c = id.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return -1;
    n = n * 10 + (c - 0x30);
  }
  return n;
}

const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;

/**
 * A {@link ContinuityEventStore} id read as `CONTINUITY_ID_PATTERN` reads it,
 * `^(?<stream>[0-9a-z]+-s\d+)-(?<seq>\d+)$`, by one scan instead of the regular expression and
 * its groups (about ten times the cost, paid on every event of a store's stream). The epoch
 * holds no `-`, nor the digits after `s`, so each part ends at the first character it cannot
 * hold and the scan never backtracks. properties/runtime/guard-ids.test.ts holds it to the
 * pattern over generated ids.
 * @internal
 */
export function readStoreId(id: string): { seq: number; stream: string } | null {
  let i = 0;
  for (; i < id.length; i++) {
    const c = id.charCodeAt(i);
    if (!(c >= 0x61 && c <= 0x7a) && !isDigit(c)) break;
  }
  return readAfterEpoch(id, i);
}

/**
 * The rest of a store id whose epoch (`[0-9a-z]+`) ends at `i`: `-s<k>-<seq>` to its end.
 * @internal
 */
export function readAfterEpoch(id: string, i: number): { seq: number; stream: string } | null {
  const n = id.length;
  // `-s` after a non-empty epoch.
  if (i === 0 || id.charCodeAt(i) !== 0x2d || id.charCodeAt(i + 1) !== 0x73) return null;
  i += 2;
  const k = i;
  while (i < n && isDigit(id.charCodeAt(i))) i++;
  if (i === k || id.charCodeAt(i) !== 0x2d) return null;
  const streamEnd = i++;
  const from = i;
  while (i < n && isDigit(id.charCodeAt(i))) i++;
  if (i === from || i !== n) return null;
  return { seq: Number(id.slice(from)), stream: id.slice(0, streamEnd) };
}

/** Builds an {@link IdReader} from a regular expression with named groups `seq` and `stream`. */
export function idReaderFromPattern(pattern: RegExp): IdReader {
  return (id) => {
    const m = pattern.exec(id);
    const seq = m?.groups?.seq;
    if (seq === undefined || !/^\d{1,15}$/.test(seq)) return null;
    const stream = m!.groups!.stream; // a match with its seq group: both are there
    return stream === undefined ? { seq: Number(seq) } : { seq: Number(seq), stream };
  };
}
