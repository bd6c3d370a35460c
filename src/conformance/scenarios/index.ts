/**
 * The scenarios, each a named function: put the server where the scenario needs it (with the
 * test tool's holds, not with sleeps), cut the connection, reconnect with `Last-Event-ID`, and
 * compare what arrived with what was owed. Every wait is bounded by `timeoutMs` / `idleMs`.
 */
import type { Scenario } from './scenario.js';
import {
  burstThenResume,
  emptyResumeThenReconnect,
  resumeAfterEviction,
  resumeAfterRestart,
  resumeWithinWindow,
} from './resume.js';
import { cursorOfAnotherSession, cursorOfAnotherStream, twoSessionsInFlight } from './isolation.js';
import {
  finishedWhileAway,
  readerStallsThenDrains,
  slowStoreReplay,
  staleConnection,
} from './timing.js';

export * from './scenario.js';
export * from './resume.js';
export * from './isolation.js';
export * from './timing.js';

/** Every scenario, in the order of the matrix. */
export const SCENARIOS: readonly Scenario[] = [
  resumeWithinWindow,
  resumeAfterEviction,
  resumeAfterRestart,
  cursorOfAnotherStream,
  cursorOfAnotherSession,
  burstThenResume,
  emptyResumeThenReconnect,
  readerStallsThenDrains,
  staleConnection,
  slowStoreReplay,
  twoSessionsInFlight,
  finishedWhileAway,
];
