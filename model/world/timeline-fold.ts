/**
 * Runs of routine timeline lines, folded. The seven-minute stall is 300 lines of "emits event
 * n", "n ms pass", "machine <- EVENT n": a reader learns nothing from line 200 that line 20 did
 * not say. `--brief` timelines and sequence diagrams print such a run as one line or one note
 * ("events 42..130 (89) emitted, none arrive"), so that what is left is what changed.
 */
import { ACCEPTING_STATES } from '../client-machine.js';
import { formatTime } from './clock.js';
import type { TimelineEntry } from './timeline.js';

/** A run of routine entries, folded into one. */
export interface FoldedRun {
  /** Index of its first and of its last entry in the timeline. */
  from: number;
  to: number;
  /** The ids the tool appended to the log, first and last (`null`: none). */
  emitted: readonly [number, number] | null;
  /** The ids that arrived at the client in order, first and last (`null`: none). */
  arrived: readonly [number, number] | null;
  /** Keepalives that could not be written (the socket was full). */
  blocked: number;
  /** Keepalives that arrived and changed nothing (a state-changing one is never folded). */
  keepalives: number;
  /** Virtual time of its first and of its last entry. */
  t0: number;
  t1: number;
}

/** A timeline in segments: single entries, and folded runs. */
export type TimelineSegment = { k: 'line'; index: number } | { k: 'run'; run: FoldedRun };

/** Runs shorter than this stay as lines: folding three lines into one hides more than it saves. */
export const MIN_RUN = 5;

const ACCEPTING = new Set<string>(ACCEPTING_STATES);

/**
 * Routine: the tool's progress events, time passing, draining, a blocked keepalive, a keepalive
 * that leaves the machine's state as it was, and an event that arrives in order on an accepted
 * stream (the state stays, the cursor moves to it).
 * Everything else (a reconnect, an answer, a decision, a fault) is what a reader looks for.
 */
export function isRoutine(e: TimelineEntry): boolean {
  const tag = e.tag;
  switch (tag.k) {
    case 'emit':
      return !tag.result;
    case 'advance':
    case 'drain':
    case 'keepalive-blocked':
      return true;
    case 'observe':
      // A keepalive that leaves the state as it was is routine; one that changes it is not.
      if (tag.obs.type === 'KEEPALIVE') return tag.from === e.state;
      return (
        tag.obs.type === 'EVENT' &&
        tag.from === e.state &&
        ACCEPTING.has(e.state) &&
        e.cursor === tag.obs.id
      );
    default:
      return false;
  }
}

function summarize(es: readonly TimelineEntry[], from: number, to: number): FoldedRun {
  let emitted: [number, number] | null = null;
  let arrived: [number, number] | null = null;
  let blocked = 0;
  let keepalives = 0;
  for (let i = from; i <= to; i++) {
    const tag = es[i]!.tag;
    if (tag.k === 'emit') emitted = emitted ? [emitted[0], tag.id] : [tag.id, tag.id];
    else if (tag.k === 'observe' && tag.obs.type === 'EVENT')
      arrived = arrived ? [arrived[0], tag.obs.id] : [tag.obs.id, tag.obs.id];
    else if (tag.k === 'keepalive-blocked') blocked++;
    else if (tag.k === 'observe' && tag.obs.type === 'KEEPALIVE') keepalives++;
  }
  return { from, to, emitted, arrived, blocked, keepalives, t0: es[from]!.t, t1: es[to]!.t };
}

/**
 * The timeline in segments: maximal runs of at least `minRun` routine entries are folded. A run
 * never crosses into or out of the epilogue, so that each run sits under one heading.
 */
export function foldTimeline(
  es: readonly TimelineEntry[],
  minRun: number = MIN_RUN,
): TimelineSegment[] {
  const out: TimelineSegment[] = [];
  let i = 0;
  while (i < es.length) {
    let j = i;
    const epilogue = es[i]!.command < 0;
    while (j < es.length && isRoutine(es[j]!) && es[j]!.command < 0 === epilogue) j++;
    if (j - i >= minRun) {
      out.push({ k: 'run', run: summarize(es, i, j - 1) });
      i = j;
    } else {
      out.push({ k: 'line', index: i });
      i++;
    }
  }
  return out;
}

/** `1..41 (41)`, or `7` for a single id. */
export function idRange([a, b]: readonly [number, number]): string {
  return a === b ? `${a}` : `${a}..${b} (${b - a + 1})`;
}

/** What a folded run says, in words: `events 42..130 (89) emitted, none arrive; ...`. */
export function describeRun(r: FoldedRun): string {
  const parts: string[] = [];
  const { emitted: e, arrived: a } = r;
  if (e && a && e[0] === a[0] && e[1] === a[1])
    parts.push(`events ${idRange(e)} emitted and arrive`);
  else {
    if (e) parts.push(`events ${idRange(e)} emitted${a ? '' : ', none arrive'}`);
    if (a) parts.push(`events ${idRange(a)} arrive`);
  }
  if (r.keepalives > 0) parts.push(`keepalive x${r.keepalives} arrive`);
  if (r.blocked > 0) parts.push(`keepalive blocked x${r.blocked}`);
  if (parts.length === 0) parts.push('time passes, nothing arrives');
  return parts.join('; ');
}

/** The virtual time span of a run: `0:00-5:28`. */
export function runSpan(r: FoldedRun): string {
  return r.t0 === r.t1 ? formatTime(r.t0) : `${formatTime(r.t0)}-${formatTime(r.t1)}`;
}
