/**
 * `explore --binding mcp-tasks` prints a kill table: the binding's mutants and the client
 * mutants, each searched in task-stream worlds (model/mutants/kill-table.ts,
 * `taskMutantEntries`). Every binding mutant that breaks a claim in the task world (all but the
 * ones the manifest shows proven for every task policy) is killed within the runs given.
 */
import { describe, expect, test } from 'vitest';
import { taskMutantEntries } from '../../model/mutants/kill-table.js';
import { BINDING_MUTANTS } from '../../model/mutants/binding-mutants.js';
import { explore } from '../../src/explore/explore.js';
import { formatExploreReport } from '../../src/explore/report.js';

describe('explore --binding mcp-tasks', () => {
  test('prints a kill table of the task mutants, searched in task-stream worlds', () => {
    const report = explore({
      seed: 1,
      seconds: 1,
      runs: 20,
      kind: 'mixed',
      killRuns: 300,
      binding: 'mcp-tasks',
    });
    const names = report.killTable.map((r) => r.mutant);
    expect(names).toEqual(taskMutantEntries().map((e) => e.name));
    for (const m of BINDING_MUTANTS) expect(names).toContain(m.name);
    const row = (name: string) => report.killTable.find((r) => r.mutant === name)!;
    // The binding mutants the task world exposes (docs/verify.md, "The task-stream binding").
    for (const name of [
      'tasks-missing-after-opens',
      'tasks-duplicate-proves',
      'tasks-duplicate-is-rewind',
    ]) {
      expect(row(name).claim, name).not.toBeNull();
    }
    expect(row('trusts-any-200').claim).not.toBeNull();
    for (const r of report.killTable) {
      if (r.claim !== null) expect(r.replay?.kind).toBeDefined();
    }
    const text = formatExploreReport(report);
    expect(text).toMatch(/mutant kill table/);
    expect(text).toMatch(/explore --binding mcp-tasks --seed 1 --mutant-runs 300/);
    expect(text).toContain('tasks-missing-after-opens');
  }, 300_000);
});
