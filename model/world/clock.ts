/** The injected virtual clock: time moves only when the world advances it. */

/** A clock that only the world moves. */
export interface VirtualClock {
  /** Virtual milliseconds since the tool call started. */
  now: number;
}

/** A clock at time 0. */
export function newClock(): VirtualClock {
  return { now: 0 };
}

/** `12:34.5` style (minutes:seconds) for timelines. */
export function formatTime(ms: number): string {
  const m = Math.floor(ms / 60_000);
  const s = (ms % 60_000) / 1000;
  const ss = s < 10 ? `0${s}` : `${s}`;
  return `${m}:${ss}`;
}
