/**
 * The observed matrix, asserted cell by cell: an SDK release that changes how it answers a
 * resumption fails here, loudly, naming the cell.
 */
import { describe, expect, test } from 'vitest';
import { SERVER_IMPLEMENTATIONS } from '../../src/conformance/rows/implementations.js';
import { runCell, type JudgedCell } from '../../src/conformance/rows/matrix.js';
import { SCENARIOS } from '../../src/conformance/scenarios/index.js';
import type { CellVerdict } from '../../src/conformance/types.js';

/** Columns, in SCENARIOS order. */
const COLUMNS = SCENARIOS.map((s) => s.name);

/**
 * The observed matrix (issue 5; two-sessions and finished-while-away: issue 19). `silent loss*`:
 * at least once in three runs (it is random).
 */
const EXPECTED: Record<string, string> = {
  // within | eviction | restart | other-stream | other-session | burst | empty-twice | stall | stale
  // | slow-store | two-sessions | finished-while-away
  // finished-while-away: the example store's ids lose their order within one millisecond, so
  // the scenario releases the result a millisecond after the last message (held-window.test.ts).
  'sdk-v1+example':
    'honored|n/a|rejected|honored|leak|silent loss*|honored|honored|honored|n/a|honored|honored',
  'sdk-v1+ring':
    'honored|silent loss|rejected|honored|leak|honored|honored|honored|honored|n/a|honored|honored',
  'sdk-v1+continuity':
    'honored|rejected|rejected|honored|rejected|honored|honored|honored|honored|honored|honored|honored',
  'sdk-v1@2025-03-26+continuity':
    'honored|rejected|rejected|honored|rejected|honored|honored|honored|honored|honored|honored|honored',
  'server-v2+example':
    'honored|n/a|rejected|honored|leak|silent loss*|honored|honored|honored|n/a|honored|honored',
  'server-v2+ring':
    'honored|silent loss|rejected|honored|leak|honored|honored|honored|honored|n/a|honored|honored',
  'server-v2+continuity':
    'honored|rejected|rejected|honored|rejected|honored|honored|honored|honored|honored|honored|honored',
  // The same store slowed without its ReplayFence: the SDK transports' replay window.
  // Its slow-store-replay cell lands message 4 inside the replay window by events (the scenario
  // holds the store's replay after its read), not by a timer a loaded machine fires too late.
  'sdk-v1+nofence':
    'honored|rejected|rejected|honored|rejected|honored|honored|honored|honored|silent loss|honored|honored',
  'server-v2+nofence':
    'honored|rejected|rejected|honored|rejected|honored|honored|honored|honored|silent loss|honored|honored',
  'mcp-proxy':
    'honored|rejected|rejected|honored|rejected|honored|honored|n/a|rejected|n/a|honored|honored',
};

function show(c: JudgedCell): string {
  return `${c.implementation} × ${c.scenario}: ${c.verdict} (${c.observed})${c.reason ? ` [${c.reason}]` : ''}`;
}

describe.each(SERVER_IMPLEMENTATIONS.map((e) => [e.name, e] as const))('%s', (name, entry) => {
  const row = EXPECTED[name]?.split('|') as (CellVerdict | 'silent loss*')[] | undefined;
  test.each(SCENARIOS.map((s, i) => [s.name, s, i] as const))('%s', async (_n, scenario, i) => {
    const want = row?.[i];
    expect(want, `no expectation for ${name} × ${COLUMNS[i]}`).toBeDefined();
    let cell = await runCell(entry, scenario);
    if (want?.includes(' or ')) {
      expect(want.split(' or '), show(cell)).toContain(cell.verdict);
    } else if (want === 'silent loss*') {
      for (let k = 0; k < 2 && cell.verdict !== 'silent loss'; k++) {
        cell = await runCell(entry, scenario);
      }
      expect(cell.verdict, show(cell)).toBe('silent loss');
    } else {
      expect(cell.verdict, show(cell)).toBe(want);
    }
    if (cell.verdict !== 'n/a') {
      expect(cell.oracle?.error, show(cell)).toBeUndefined();
      expect(cell.trace.length).toBeGreaterThan(0);
    }
    if (name.endsWith('+continuity')) {
      const bad = ['silent loss', 'leak', 'hang', 'error'];
      expect(bad, show(cell)).not.toContain(cell.verdict);
      // The reference store's traces are provable: the oracle agrees with the ground truth.
      expect(cell.oracle?.agrees ?? true, show(cell)).toBe(true);
    }
    if (cell.verdict === 'leak' && cell.scenario === 'other-session') {
      expect(cell.security).toBe(true);
    }
  });
});
