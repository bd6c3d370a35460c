/**
 * The kill table in docs/world.md is what `mcp-resumption mutants --seed 1 --write
 * docs/world.md` generates from a real run: this test reruns it and compares.
 */
import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { killTable } from '../../model/mutants/kill-table.js';
import { renderKillExample, renderKillReport } from '../../src/commands/mutants.js';

test('docs/world.md carries the kill table of a real run (regenerate: see the marker)', () => {
  const doc = readFileSync(new URL('../../docs/world.md', import.meta.url), 'utf8');
  const rows = killTable({ runsPerProbe: 3_000, seed: 1 });
  const body = renderKillReport(rows, 1, 3_000);
  expect(
    doc.includes(body),
    'docs/world.md is stale: npm run build && node dist/src/cli.js mutants --seed 1 --write docs/world.md',
  ).toBe(true);
  expect(doc.includes(renderKillExample(rows)!), 'the example counterexample is stale').toBe(true);
  expect(rows.every((r) => r.claim !== null)).toBe(true);
});
