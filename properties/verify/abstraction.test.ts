/**
 * The state abstraction is sound where it is used: in the small scope, every state found
 * again (same encoding) gets the same verdicts from every claim as the state it was merged
 * with, for a correct and a wrong client, an honest server and servers whose faults hinge on
 * what the abstraction drops (same-tick emission times, declared floors, evictions).
 */
import { describe, expect, test } from 'vitest';
import { CLAIMS } from '../../model/claims/index.js';
import { SCOPES, scopeConfigs } from '../../model/verify/scope.js';
import type { PolicyName } from '../../model/world/config.js';
import { search } from '../../src/verify/engine.js';
import { clientSubject } from '../../src/verify/run.js';

const CASES: [PolicyName, string][] = [
  ['honest', 'model'],
  ['reorder-same-tick', 'model'],
  ['evicted-as-known', 'model'],
  ['honest', 'trusts-any-200'],
  ['honest-reject', 'drops-cursor'],
];

describe('the abstraction merges only states the claims cannot tell apart', () => {
  test.each(CASES)('server %s, client %s', (policy, client) => {
    const scope = SCOPES.small;
    const r = search({
      configs: scopeConfigs(scope, policy),
      subject: clientSubject(client),
      claims: CLAIMS,
      bounds: scope.bounds,
      checkAbstraction: true,
    });
    expect(r.generated).toBeGreaterThan(r.distinct);
    expect(r.abstractionErrors).toEqual([]);
  });
});
