/**
 * The hostile server's wire, read: the shape of its ids ({@link HOSTILE_ID_PATTERN}) and of a
 * call ({@link HOSTILE_N} messages, then the result), the first break in a call's sequence
 * ({@link sequenceGap}), what counts as a retry storm ({@link STORM_PER_SECOND}), and the
 * verdict on one session from what the server saw alone ({@link wireVerdict}, what `serve`
 * prints). The records it reads are hostile-activity.ts's; the server is hostile-server.ts.
 */
import type { SessionActivity } from './hostile-activity.js';
import type { HostileScenario } from './scenarios/hostile.js';

/** The ids of the hostile server: `c<k>-<seq>`, a stream per call, `seq` contiguous from 0. */
export const HOSTILE_ID_PATTERN = /^(?<stream>c\d+)-(?<seq>\d+)$/;

/** Messages of each call. */
export const HOSTILE_N = 8;

/** More GETs than this in one second (in one session, after the cut) is a retry storm. */
export const STORM_PER_SECOND = 10;

/**
 * The first break in one call's sequence (`items`: `c1#1`, …, `c1:result`, in order): a message
 * after a missing one, or the result without every message; `null` when there is none.
 */
export function sequenceGap(tag: string, items: readonly string[]): string | null {
  let next = 1;
  for (const d of items) {
    if (d === `${tag}:result`) {
      return next === HOSTILE_N + 1
        ? null
        : `${tag}'s result after ${tag}#${next - 1}, ${next}..${HOSTILE_N} never`;
    }
    const i = Number(d.slice(tag.length + 1));
    if (i === next) next++;
    else if (i > next) return `${tag}#${i} after ${tag}#${next - 1}, ${next}..${i - 1} never`;
  }
  return null;
}

/** What the wire shows of one client (session) in `serve`: a verdict, or what it hinges on. */
export interface WireVerdict {
  session: string;
  /** A client verdict, or two joined by "or" when only what the client showed can tell. */
  verdict: string;
  observed: string;
}

/**
 * Judges one session from the wire alone (`serve` sees no client output): what it was served on
 * its last call, its reconnects, its GETs per second, and whether it still waited on a stream
 * when the server stopped. Where the answer hinges on what the client showed (an error surfaced
 * or not), the verdict names both and the line says which is which.
 */
export function wireVerdict(
  scenario: HostileScenario,
  a: SessionActivity,
  served: Readonly<Record<string, readonly string[]>>,
  waiting: boolean,
): WireVerdict {
  const last = a.calls.at(-1)!;
  const got = served[last] ?? [];
  const gap = sequenceGap(last, got);
  const shown = got.length <= 10 ? got.join(' ') : `${got.slice(0, 10).join(' ')} …`;
  const cursors = a.cursors.length
    ? ` (cursors ${[...new Set(a.cursors)].slice(0, 4).join(', ')})`
    : '';
  const what =
    `${a.calls.length} call(s) of count (${a.calls.join(', ')}), ${a.reconnects} reconnect(s)` +
    `${cursors}, at most ${a.maxGetsPerSecond} GET/s after the cut; served on ${last}: ${shown || 'nothing'}`;
  const v = (verdict: string, why: string): WireVerdict => ({
    session: a.session,
    verdict,
    observed: `${why}; ${what}`,
  });
  if (a.maxGetsPerSecond > STORM_PER_SECOND)
    return v('retry storm', 'more than 10 GETs in one second');
  const foreign = scenario.name === 'cross-stream' && a.reconnects > 0 && served.x9 !== undefined;
  if (gap === null && got.includes(`${last}:result`)) {
    return v('honored', 'served the whole call: honored if the client delivered all of it');
  }
  if (waiting) {
    return v(
      'endless wait',
      'still waiting on a stream when the server stopped: an endless wait unless the client bounds it',
    );
  }
  if (foreign || gap !== null) {
    return v(
      'rejected or silent gap',
      `it was served ${foreign ? "another stream's events" : gap}: right only if the client ` +
        'surfaced an error (a client that delivered what came after: silent gap)',
    );
  }
  return v(
    'rejected or dropped call',
    'the call never ended on the wire and the client left: right only if it surfaced an error',
  );
}
