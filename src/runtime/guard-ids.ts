/**
 * Reading sequence numbers (and the stream) out of SSE event ids: the guard can only prove a
 * resumption from ids it can read.
 */
import { CONTINUITY_ID_PATTERN } from './continuity-store.js';
import type { IdReader } from './guard-options.js';

/**
 * The default id reader: a {@link ContinuityEventStore} id (`<epoch>-s<k>-<seq>`), or a plain
 * decimal id.
 */
export function defaultIdReader(id: string): { seq: number; stream?: string } | null {
  // A plain decimal id (read on every event of such a stream) skips the store's pattern, which
  // needs a `-` and so never matches one.
  if (isDecimal(id)) return { seq: Number(id) };
  const m = CONTINUITY_ID_PATTERN.exec(id);
  return m?.groups ? { seq: Number(m.groups.seq), stream: m.groups.stream! } : null;
}

/** `^\d{1,15}$`, without a regular expression. */
function isDecimal(id: string): boolean {
  if (id.length === 0 || id.length > 15) return false;
  for (let i = 0; i < id.length; i++) {
    const c = id.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return false;
  }
  return true;
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
