/**
 * The client rows, asserted cell by cell: the SDK client bare loses or hangs where the guard
 * raises StreamResumptionError; the guarded rows have no silent loss, leak or hang.
 */
import { describe, expect, test } from 'vitest';
import {
  CLIENT_IMPLEMENTATIONS,
  CLIENT_SCENARIOS,
  runClientCell,
} from '../../src/conformance/rows/client-rows.js';
import type { JudgedCell } from '../../src/conformance/rows/matrix.js';

const EXPECTED: Record<string, string> = {
  // within | eviction | restart | other-stream | other-session | burst | empty-twice | stall | stale
  // | slow-store (the slowed store is the ContinuityEventStore's only)
  'sdk-client-v1 → ring': 'honored|silent loss|hang|n/a|n/a|n/a|silent loss|honored|n/a|n/a',
  'sdk-client-v1+guard → ring': 'honored|rejected|rejected|n/a|n/a|n/a|rejected|honored|n/a|n/a',
  'sdk-client-v1 → continuity': 'honored|hang|hang|n/a|n/a|n/a|silent loss|honored|n/a|silent loss',
  'sdk-client-v1+guard → continuity':
    'honored|rejected|rejected|n/a|n/a|n/a|rejected|honored|n/a|rejected',
  'sdk-client-v2 → ring': 'honored|silent loss|hang|n/a|n/a|n/a|silent loss|honored|n/a|n/a',
  'sdk-client-v2+guard → ring': 'honored|rejected|rejected|n/a|n/a|n/a|rejected|honored|n/a|n/a',
};

const show = (c: JudgedCell) => `${c.implementation} × ${c.scenario}: ${c.verdict} (${c.observed})`;

describe.each(CLIENT_IMPLEMENTATIONS.map((e) => [e.name, e] as const))('%s', (name, entry) => {
  const row = EXPECTED[name]?.split('|');
  test.each(CLIENT_SCENARIOS.map((s, i) => [s.name, s, i] as const))('%s', async (_n, sc, i) => {
    const cell = await runClientCell(entry, sc);
    // empty-resume-twice shows a bare SDK client dropping its cursor after two empty resumes
    // (then the owed events are lost without a word). On a loaded machine the SDK at times still
    // sends its cursor on the second reconnect (seen in CI: two resumes with a cursor, no GET
    // without one); the owed events then arrive, and 'honored' is the right verdict for what
    // happened. Which of the two happened is in the cell's observation, so the row is held to it.
    const keptCursor =
      sc.name === 'empty-resume-twice' && !entry.guard && !/cursor-less GET/.test(cell.observed);
    expect(cell.verdict, show(cell)).toBe(keptCursor ? 'honored' : row?.[i]);
    if (entry.guard) {
      expect(['silent loss', 'leak', 'hang', 'error']).not.toContain(cell.verdict);
    }
    if (cell.verdict !== 'n/a') {
      expect(cell.oracle?.error, show(cell)).toBeUndefined();
      expect(cell.oracle?.agrees, `${show(cell)} ${cell.oracle?.note}`).toBe(true);
    }
    if (sc.name === 'reader-stall') {
      // The application's busy loop did not trip the idle timer: no reconnect at all.
      expect(cell.observed).toContain('resumes: 0');
    }
  });
});
