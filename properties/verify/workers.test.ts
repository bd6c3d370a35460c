/**
 * The search on two worker threads is the search on one: the same distinct and generated
 * counts, depth, claims applied, verdicts and shortest counterexamples (fingerprints are
 * owned by hash, and each owner keeps the first path in path order, as one thread does), for
 * a clean row of the manifest (every claim proven) and a mutant row (claims broken).
 */
import { describe, expect, test } from 'vitest';
import { SCOPES } from '../../model/verify/scope.js';
import type { PolicyName } from '../../model/world/config.js';
import { verifyOne, type VerifyRun } from '../../src/verify/run.js';

/** What must not depend on the number of threads. */
function outcome(r: VerifyRun) {
  return {
    distinct: r.distinct,
    generated: r.generated,
    depth: r.depth,
    complete: r.complete,
    claims: r.claims.map((c) => ({
      name: c.name,
      proven: c.proven,
      applied: c.applied,
      depth: c.counterexample?.depth ?? null,
      why: c.counterexample?.why ?? null,
      config: c.counterexample?.cfg ?? null,
      commands: c.counterexample?.commands ?? null,
    })),
  };
}

const ROWS: [PolicyName, string][] = [
  ['honest', 'model'],
  ['honest', 'drops-cursor'],
];

describe('verify on worker threads', () => {
  test.each(ROWS)('server %s, client %s: 2 workers find what 1 thread finds', (policy, client) => {
    const coverage1 = new Set<string>();
    const coverage2 = new Set<string>();
    const one = verifyOne(SCOPES.small, policy, client, { coverage: coverage1 });
    const two = verifyOne(SCOPES.small, policy, client, { workers: 2, coverage: coverage2 });
    expect(two.workers).toBe(2);
    expect(outcome(two)).toEqual(outcome(one));
    expect([...coverage2].sort()).toEqual([...coverage1].sort());
    // Three owners interleave the successors of one parent more than two do.
    expect(outcome(verifyOne(SCOPES.small, policy, client, { workers: 3 }))).toEqual(outcome(one));
    if (client !== 'model') expect(one.claims.some((c) => !c.proven)).toBe(true);
    else expect(one.claims.every((c) => c.proven)).toBe(true);
  });
});
