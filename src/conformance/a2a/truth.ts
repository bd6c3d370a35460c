/**
 * The ground truth of an A2A cell: what the agent emitted against what the client received,
 * which no A2A 1.0 client can compute (events carry no id). The client folds its frames as an
 * application would: a `Task` frame replaces its view, an artifact chunk appends (or replaces
 * when not `append`), a status replaces the status. An emitted event after the cut is
 * - **folded** when the resubscribe's snapshot holds it (re-sync, not a replay: allowed by 1.0),
 * - **delivered** when it came as an event on the resubscribe,
 * - **lost** when neither (it is in the task's state, as `GetTask` shows, and the client never
 *   learns of it), and **duplicated** when both, or twice as an event (the application applies
 *   it twice: the chunk is appended again).
 */
import type { EmittedEvent } from './sdk-server.js';
import { eventOf, textsOf, type Frame } from './wire.js';

/** What the ground truth says of a cell. */
export type A2aTruth = 'clean' | 'loss' | 'duplicate' | 'loss+duplicate' | 'refused';

/** The ground truth of one cell, with what supports it. */
export interface A2aTruthReport {
  truth: A2aTruth;
  lost: number[];
  duplicated: number[];
  folded: number[];
  /** The resubscribe's snapshot held exactly the events the client had before the cut. */
  snapshotEqualsView: boolean;
  /** The artifact as the client reassembled it, and as the server holds it (GetTask). */
  clientArtifact: string;
  serverArtifact: string;
  /** One line. */
  text: string;
}

const refusedBy = (after: readonly Frame[]) => after.some((f) => f.kind === 'error');

const numbers = (value: unknown) =>
  [
    ...new Set(textsOf(value).flatMap((t) => [...t.matchAll(/e(\d+)/g)].map((m) => Number(m[1])))),
  ].sort((a, b) => a - b);

function artifactOf(task: unknown): string {
  const arts = ((task as Record<string, unknown> | undefined)?.['artifacts'] ?? []) as unknown[];
  return arts.map((a) => textsOf(a).join('')).join('');
}

/**
 * A wrong judge, for the tests that show the truth can fail: `snapshot-blind` ignores what the
 * resubscribe's snapshot folds (a 1.0 re-sync read as a loss: false losses on a healthy
 * store); `duplicate-blind` counts every event once (a seam duplicate read as clean).
 */
export type TruthMutant = 'snapshot-blind' | 'duplicate-blind';

/** Every {@link TruthMutant}. */
export const TRUTH_MUTANTS: readonly TruthMutant[] = ['snapshot-blind', 'duplicate-blind'];

/**
 * Judges a cell: `emitted` by the agent, `before` the frames of the original stream up to the
 * cut, `after` the resubscribe's frames, `server` the task as `GetTask` returned it at the end.
 */
export function judgeTruth(
  emitted: readonly EmittedEvent[],
  before: readonly Frame[],
  after: readonly Frame[],
  server: unknown,
  mutant?: TruthMutant,
): A2aTruthReport {
  const seenBefore = before.map(eventOf).filter((k): k is number => k !== undefined);
  const lastBefore = Math.max(0, ...seenBefore);
  const snapshot = after[0]?.kind === 'task' ? after[0].value : undefined;
  const inSnapshot = new Set(snapshot && mutant !== 'snapshot-blind' ? numbers(snapshot) : []);
  const counts = new Map<number, number>();
  for (const f of after.slice(snapshot ? 1 : 0)) {
    const k = eventOf(f);
    if (k !== undefined) counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  const lost: number[] = [];
  const duplicated: number[] = [];
  const folded: number[] = [];
  for (const e of emitted) {
    const n = counts.get(e.k) ?? 0;
    const held = inSnapshot.has(e.k) || (snapshot === undefined && e.k <= lastBefore);
    if (n + (held ? 1 : 0) > 1 && mutant !== 'duplicate-blind') duplicated.push(e.k);
    else if (e.k > lastBefore && n === 0 && !held && !(snapshot === undefined && refusedBy(after)))
      lost.push(e.k);
    else if (e.k > lastBefore && held) folded.push(e.k);
  }
  // The client's artifact: what it had before the cut, replaced by the snapshot, then the chunks.
  let clientArtifact = before
    .map((f) => (f.kind === 'artifactUpdate' ? textsOf(f.value).join('') : ''))
    .join('');
  if (snapshot) clientArtifact = artifactOf(snapshot);
  for (const f of after.slice(snapshot ? 1 : 0)) {
    if (f.kind !== 'artifactUpdate') continue;
    const chunk = textsOf(f.value).join('');
    clientArtifact = f.value['append'] === true ? clientArtifact + chunk : chunk;
  }
  const serverArtifact = artifactOf(server);
  const refused = after.some((f) => f.kind === 'error');
  const snapshotEqualsView =
    snapshot !== undefined &&
    [...inSnapshot].join(',') === [...new Set(seenBefore)].sort((a, b) => a - b).join(',');
  const truth: A2aTruth = refused
    ? 'refused'
    : lost.length > 0 && duplicated.length > 0
      ? 'loss+duplicate'
      : lost.length > 0
        ? 'loss'
        : duplicated.length > 0
          ? 'duplicate'
          : 'clean';
  const parts: string[] = [];
  if (refused) {
    const err = after.find((f) => f.kind === 'error');
    const missed = emitted.filter((e) => e.k > lastBefore).map((e) => `e${e.k}`);
    const what = err && err.kind === 'error' ? `HTTP ${err.status}, JSON-RPC ${err.code}` : 'error';
    parts.push(
      `an error instead of a stream (${what})${missed.length > 0 ? `; ${missed.join(', ')} never delivered as events` : ''}`,
    );
  } else {
    if (lost.length > 0)
      parts.push(
        `lost ${lost.map((k) => `e${k}`).join(', ')} (in neither the snapshot nor the stream)`,
      );
    if (duplicated.length > 0)
      parts.push(
        `duplicated ${duplicated.map((k) => `e${k}`).join(', ')} (in the snapshot and again as an event)`,
      );
    if (parts.length === 0)
      parts.push(
        `every event once${folded.length > 0 ? ` (${folded.map((k) => `e${k}`).join(', ')} folded into the snapshot)` : ''}`,
      );
    if (snapshotEqualsView && lost.length > 0) {
      parts.push("the snapshot equals the client's view, yet an event was lost");
    }
    parts.push(
      clientArtifact === serverArtifact
        ? `artifact ${clientArtifact} as the server's`
        : `client's artifact ${clientArtifact} vs the server's ${serverArtifact}`,
    );
  }
  return {
    truth,
    lost,
    duplicated,
    folded,
    snapshotEqualsView,
    clientArtifact,
    serverArtifact,
    text: parts.join('; '),
  };
}
