/**
 * The small scope, searched exhaustively for every policy and client of the manifest: the
 * claims are proven (model client), the state counts are the manifest's, and the transitions
 * no reachable state takes are exactly those with a recorded reason. Deterministic: no seed.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, test } from 'vitest';
import { clientMachine } from '../../model/client-machine.js';
import { listTransitions } from '../../model/transitions.js';
import { SCOPES } from '../../model/verify/scope.js';
import { UNREACHED_REASONS } from '../../model/verify/unreached.js';
import { HONEST_POLICIES, POLICIES } from '../../model/world/config.js';
import { manifestRowOf, manifestSearches, type Manifest } from '../../src/verify/manifest.js';
import { verifyOne, type VerifyRun } from '../../src/verify/run.js';

const scope = SCOPES.small;
const coverage = new Set<string>();
const runs: VerifyRun[] = [];

beforeAll(() => {
  for (const { policy, client } of manifestSearches())
    runs.push(verifyOne(scope, policy, client, client === 'model' ? { coverage } : {}));
}, 300_000);

const modelRun = (policy: string) => runs.find((r) => r.client === 'model' && r.policy === policy)!;

describe('exhaustive search of the small scope', () => {
  test.each(POLICIES)(
    'model client against %s: NoUnprovenAcceptance and NoSilentPartialResult proven',
    (policy) => {
      const r = modelRun(policy);
      expect(r.complete).toBe(true);
      for (const name of ['NoUnprovenAcceptance', 'NoSilentPartialResult']) {
        const c = r.claims.find((x) => x.name === name)!;
        expect(c.counterexample?.why ?? 'proven', `${name} against ${policy}`).toBe('proven');
        expect(c.applied).toBeGreaterThan(0);
      }
    },
  );

  test.each(POLICIES)('model client against %s: NoFalseAlarm and Delivery proven', (policy) => {
    const r = modelRun(policy);
    for (const name of ['NoFalseAlarm', 'Delivery']) {
      const c = r.claims.find((x) => x.name === name)!;
      expect(c.counterexample?.why ?? 'proven', `${name} against ${policy}`).toBe('proven');
      // Not vacuous where the server is honest: valid worlds are reached and judged.
      if (HONEST_POLICIES.includes(policy)) expect(c.applied).toBeGreaterThan(1_000);
    }
  });

  test.each(POLICIES)(
    'model client against %s: NoWaitAfterFailure proven (the call ends at the decision)',
    (policy) => {
      const r = modelRun(policy);
      const c = r.claims.find((x) => x.name === 'NoWaitAfterFailure')!;
      expect(c.counterexample?.why ?? 'proven', `NoWaitAfterFailure against ${policy}`).toBe(
        'proven',
      );
      // Not vacuous: every server of the scope makes the client decide a failure somewhere.
      expect(c.applied).toBeGreaterThan(0);
    },
  );

  test('the client that waits for its request timeout breaks NoWaitAfterFailure, and only it', () => {
    const r = runs.find((x) => x.client === 'waits-for-request-timeout')!;
    const broken = r.claims.filter((c) => !c.proven).map((c) => c.name);
    expect(broken).toEqual(['NoWaitAfterFailure']);
  });

  test('the state counts are the manifest’s (docs/verify-manifest.json)', () => {
    const manifest = JSON.parse(readFileSync('docs/verify-manifest.json', 'utf8')) as Manifest;
    const expected = manifest.scopes.small ?? [];
    const actual = runs.map(manifestRowOf);
    // A diff here means the state space changed: rerun `npm run verify:docs` and review it.
    expect(actual).toEqual(expected);
  });

  test('the unreached transitions are exactly those with a recorded reason', () => {
    const unreached = listTransitions(clientMachine)
      .map((t) => t.id)
      .filter((id) => !coverage.has(id));
    expect(unreached.sort()).toEqual(Object.keys(UNREACHED_REASONS).sort());
  });
});
