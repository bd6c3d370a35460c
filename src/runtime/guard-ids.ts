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
  const m = CONTINUITY_ID_PATTERN.exec(id);
  if (m?.groups) return { seq: Number(m.groups.seq), stream: m.groups.stream! };
  return /^\d{1,15}$/.test(id) ? { seq: Number(id) } : null;
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
