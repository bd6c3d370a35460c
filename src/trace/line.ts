/**
 * A parsed trace line, the type both the format's parser (./format.ts) and its fast path for
 * common lines (./common-lines.ts) return: here so that neither imports the other back.
 */
import type { Outcome } from '../../model/outcomes.js';

/** A parsed trace line. Field names follow the format; ids are already sequence numbers. */
export type TraceLine =
  | { type: 'open'; status: number; epoch?: string }
  /** `id` absent: id-less data, delivered but never replayable (the `DATA` observation). */
  | { type: 'event'; id?: number; stream?: string; response?: boolean }
  | { type: 'keepalive' }
  | { type: 'idle-timeout' }
  | { type: 'disconnect' }
  | { type: 'end' }
  /** `cursor: null`: the client sent no `Last-Event-ID`. */
  | { type: 'reconnect'; cursor: number | null; stream?: string }
  | {
      type: 'response';
      status: number;
      floor?: number;
      /** The highest id the server states it has written (docs/spec.md#caught-up). */
      head?: number;
      epoch?: string;
      durable?: boolean;
    }
  | { type: 'decision'; outcome: Outcome };

/** A parsed trace line with its time stamp (`t`, ms), when one was read. */
export type TimedTraceLine = TraceLine & { t?: number };
