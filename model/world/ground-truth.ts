/**
 * Ground truth: what really happened in the world, kept apart from everything the client
 * observes. The world writes it; only the claims (model/claims/) and the validity conditions
 * read it. The client never does.
 */

/** One reconnect as the server saw it. */
export interface ReconnectTruth {
  t: number;
  /** The Last-Event-ID the client sent (`null`: none). */
  cursor: number | null;
  /** Lowest id the server still retained, and its head, when the request arrived. */
  floor: number;
  head: number;
  /** The session the cursor belongs to was still known to the server. */
  sessionAlive: boolean;
  /** The cursor's successor was still retained (or already the next one to come). */
  retained: boolean;
  /** The status the server answered. */
  status: number;
  /** The replay floor the server declared, if any. */
  declaredFloor: number | null;
  /** The head the server stated with it, if any (docs/spec.md#caught-up). */
  declaredHead: number | null;
  /** The server primed the resumed stream (a priming event after the replay). */
  primed: boolean;
  /** When the client's episode began: its first reconnect with this cursor (polls share it). */
  episodeStart: number;
}

/** One firing of the client's idle timer. */
export interface IdleTruth {
  t: number;
  /** The connection was in fact up and the session alive: silence was not loss. */
  connectionUp: boolean;
}

/** What the server really did and what was really lost. */
export interface GroundTruth {
  /** Emission time of every tool event, by id (index 0 unused). */
  emittedAt: number[];
  /** The session epoch the tool's events belong to. */
  epoch: string;
  /** Ids evicted from the ring (in eviction order). */
  evicted: number[];
  /** Every reconnect request the server received. */
  reconnects: ReconnectTruth[];
  /** Reconnects the client made without a Last-Event-ID (it may not even send them). */
  cursorlessReconnects: number;
  /** When a fault dropped the connection (a network drop or a restart). */
  drops: number[];
  /**
   * Of those, the drops the client learned of at once (a drop it noticed, or its own
   * `Reconnect`): a delayed reconnect goes on after them with the same episode (rule 7.1).
   */
  noticedDrops: number[];
  /** Every firing of the client's idle timer. */
  idle: IdleTruth[];
  /** The session was really lost (a restart without a durable store), and when. */
  sessionLostAt: number | null;
  /**
   * Restarts, with whether the store survived them, and `era` for a restart into the 2026-07-28
   * era (a rolling upgrade: the new server has no sessions).
   */
  restarts: { t: number; durable: boolean; era?: '2026-07-28' }[];
  /** The longest time a frame waited in the writer while the connection was up. */
  longestWriteStall: number;
  /** Smallest interval between two consecutive tool events. */
  minEventInterval: number;
  /** Emission time of the first event the client had not received, per reconnect (outage). */
  longestOutage: number;
}

/** Fresh ground truth for a session of epoch `epoch`. */
export function newTruth(epoch: string): GroundTruth {
  return {
    emittedAt: [0],
    epoch,
    evicted: [],
    reconnects: [],
    cursorlessReconnects: 0,
    drops: [],
    noticedDrops: [],
    idle: [],
    sessionLostAt: null,
    restarts: [],
    longestWriteStall: 0,
    minEventInterval: Infinity,
    longestOutage: 0,
  };
}

/** How many tool events the server really emitted. */
export function emittedCount(truth: GroundTruth): number {
  return truth.emittedAt.length - 1;
}
