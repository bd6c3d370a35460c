/**
 * A vitest reporter that ends every run with its ten slowest test files (the time each spent
 * importing and running its tests), so that what makes `npm test` slow is in front of whoever
 * runs it, not found by bisecting the suite.
 */
import { relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

/** How many files the summary names. */
const SHOWN = 10;

/** The seconds one file took: its import (collect) and its tests and hooks. */
function secondsOf(m: TestModule): number {
  const d = m.diagnostic();
  return (d.collectDuration + d.duration) / 1000;
}

export default class SlowestFiles implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    if (modules.length === 0) return;
    const slowest = [...modules].sort((a, b) => secondsOf(b) - secondsOf(a)).slice(0, SHOWN);
    const lines = slowest.map(
      (m) => `  ${secondsOf(m).toFixed(1).padStart(6)} s  ${relative(process.cwd(), m.moduleId)}`,
    );
    process.stdout.write(`\nslowest test files:\n${lines.join('\n')}\n`);
  }
}
