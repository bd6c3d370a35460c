/**
 * The order in which vitest starts test files: the known-heavy files first, then vitest's own
 * order (failed first, then longest by the cache of earlier runs). A fresh clone has no such
 * cache, and vitest would then start the largest files first, which leaves a long file such as
 * the exhaustive verify suite to finish alone at the end of the run. Starting the longest ones
 * first lets the light files fill the other workers around them.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The slowest files of a full run (the slowest-files reporter prints them; these are from a
 * full `npm test` on the 2-core machine), longest first; a file that waits (on servers, npm, a
 * browser) beside one that computes.
 * A file missing from this list still runs; it is only started in vitest's own order.
 */
export const HEAVY_FILES = [
  'properties/verify/tasks-world.test.ts',
  'properties/conformance/client-rows.test.ts',
  'properties/conformance/packed-install.test.ts',
  'properties/playground/playground-pages.e2e.test.ts',
  'properties/verify/tasks-survivors.test.ts',
  'properties/conformance/matrix.test.ts',
  'properties/verify/small-scope.test.ts',
  'properties/conformance/plain-mutants.test.ts',
  'properties/docs/doc-claims.test.ts',
  'properties/conformance/slow-store.test.ts',
  'properties/playground/playground.e2e.test.ts',
  'properties/verify/abstraction.test.ts',
  'properties/verify/mutants.test.ts',
  'properties/machine/mutants.test.ts',
  'properties/runtime/guard-mutants.test.ts',
  'properties/verify/workers.test.ts',
  'properties/conformance/black-box.test.ts',
  'properties/redis/store-contract.test.ts',
  'properties/docs/sep2694-counterexamples.test.ts',
  'properties/trace/cli-process.test.ts',
];

function rank(spec: TestSpecification): number {
  const i = HEAVY_FILES.findIndex((f) => spec.moduleId.endsWith(f));
  return i < 0 ? HEAVY_FILES.length : i;
}

export default class HeavyFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const base = await super.sort(files);
    // Array.prototype.sort is stable: the rest keep vitest's order.
    return base.sort((a, b) => rank(a) - rank(b));
  }
}
