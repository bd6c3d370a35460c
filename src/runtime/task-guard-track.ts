/**
 * What `taskStreamGuard` keeps per task, and the wire facts one received item stands for. One
 * purpose: the guard's state and its reading of the wire, apart from its decisions
 * (./task-guard-runtime.ts).
 */
import type { BindingTranslator, WireFact } from '../../model/bindings/index.js';
import type { StreamResumptionError } from '../reference.js';
import type { MachineState } from '../trace/engine.js';
import type { MachineTrack } from './machine-track.js';
import type { TaskStreamItem } from './task-stream-fetch.js';

/** One task the guard follows. */
export interface Track {
  taskId: string;
  /** The task stream's machine (the SSE guard's too: machine-track.ts); `snapshot` is its state. */
  machine: MachineTrack;
  readonly snapshot: MachineState;
  translator: BindingTranslator;
  /** The seq of the last event handed on. */
  lastSeq: number | undefined;
  failure: StreamResumptionError | null;
  /** `earliestSeq` of the `events_gone` that failed the task's stream, if one did. */
  gone: number | null;
  reconnected: boolean;
  /** A follow is in progress (one stream per task at a time, as SEP-2694 requires). */
  busy: boolean;
  episodeT: number;
  /** The `after` of the current episode: a poll sends it again. */
  episodeAfter: number | null;
  /**
   * The cursor the current episode's resume is judged from (the binding's: `after`, or without
   * it the last seq known): a call from the same cursor is a poll of the episode, as the oracle
   * counts it, whether or not it repeats `after`.
   */
  episodeCursor: number | null;
  budget?: NodeJS.Timeout;
  /** Ends the follow in progress with the error the budget ran out with. */
  giveUp?: (e: StreamResumptionError) => void;
}

/**
 * The wire facts one received item stands for: an event, the result, an error (with the HTTP
 * status), or nothing (another notification, which proves nothing).
 */
export function factsOf(item: TaskStreamItem): WireFact[] {
  const m = item.message as Record<string, unknown> | undefined;
  if (typeof m === 'object' && m !== null && !Array.isArray(m)) {
    if (m['method'] === 'notifications/tasks/event') {
      const p = m['params'] as Record<string, unknown> | undefined;
      return [{ type: 'tasks/event', taskId: p?.['taskId'], seq: p?.['seq'] }];
    }
    if ('method' in m) return [];
    if ('error' in m) return [{ type: 'tasks/error', status: item.status, error: m['error'] }];
    if ('result' in m && item.status === 200) return [{ type: 'tasks/result' }];
  }
  return item.status === 200 ? [] : [{ type: 'tasks/error', status: item.status }];
}

/** `earliestSeq` of an `events_gone` error fact, or `null`. */
export function goneOf(fact: WireFact): number | null {
  if (fact['type'] !== 'tasks/error') return null;
  const data = (fact['error'] as { data?: { reason?: unknown; earliestSeq?: unknown } } | undefined)
    ?.data;
  const seq = data?.earliestSeq;
  return data?.reason === 'events_gone' && typeof seq === 'number' && Number.isSafeInteger(seq)
    ? seq
    : null;
}
