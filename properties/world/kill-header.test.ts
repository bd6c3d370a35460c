/**
 * The kill table's header and its figures agree (issue 18: "at most 1,000 runs per probe" over
 * a row of 1,026 runs): the header states the bound it was run with and that "runs to kill"
 * adds up every probe tried, so a row above the bound is explained by the header itself.
 */
import { expect, test } from 'vitest';
import type { KillRow } from '../../model/mutants/kill-table.js';
import { renderKillReport } from '../../src/commands/mutants.js';

const row = (runs: number): KillRow => ({
  mutant: 'fails-empty-poll',
  side: 'client',
  claim: 'NoFalseAlarm',
  runs,
  shrunkLength: 4,
  why: 'escalated',
  replay: null,
  counterexample: null,
});

test('a row over the per-probe bound is explained by the header that states the bound', () => {
  const text = renderKillReport([row(1026)], 1, 1000);
  const header = text.split('\n')[0]!;
  expect(header).toContain('at most 1000 runs per probe');
  expect(header).toContain('runs to kill adds up every probe tried, so it can exceed that');
  expect(header).toContain('mcp-resumption mutants --seed 1 --runs 1000');
  expect(text).toMatch(/\|\s+1026 \|/);
});
