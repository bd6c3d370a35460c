/**
 * The A2A world (issue 40) under exhaustive search: an A2A server answers `SubscribeToTask` in
 * three eras, and the client reads its wire through the `a2a` binding of that era into the same
 * machine. Within the small scope: the model's client proves every claim against every policy in
 * every era but two, where the era itself breaks one (CE4: gaps that are not losses, under
 * dev-1.1; CE5: the zombie, under dev-1.1); every A2A client mutant and server mutant is killed
 * where the model's client proves everything; the state counts are the manifest's.
 * Deterministic: no seed.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, test } from 'vitest';
import { CLAIMS } from '../../model/claims/index.js';
import { A2A_ERA_GAPS, A2A_SERVER_MUTANTS } from '../../model/mutants/a2a-subjects.js';
import { SCOPES, scopeConfigs } from '../../model/verify/scope.js';
import { A2A_ERAS, A2A_POLICIES, type A2aEra, type PolicyName } from '../../model/world/config.js';
import { search } from '../../src/verify/engine.js';
import { manifestRowOf, manifestSearches, type Manifest } from '../../src/verify/manifest.js';
import { verifyOne, type VerifyRun } from '../../src/verify/run.js';
import { A2A_CLIENT_NAMES, clientSubject } from '../../src/verify/spec.js';
import type { Subject } from '../../model/world/property.js';
import { runCli } from '../support/cli.js';

const scope = SCOPES.small;

/** The claims the model's client breaks against `policy` in `era` (the era's own gaps). */
const EXPECTED_BREAKS = A2A_ERA_GAPS;

/** An `a2a` binding mutant that no world of the scope tells from the binding (its kill is the corpus's). */
const WORLD_SURVIVORS: Readonly<Record<string, string>> = {
  // The duplicate the tap sends again is one the world's client lacks (the seam duplicates the
  // latest update): taking it as the successor is right there.
  'a2a-snapshot-ignored':
    'a duplicate the tap re-sends is, in the world, always one the client lacks',
};

/** The claims broken by `subject` against the server `runs` declared as `policy`, in `era`. */
function broken(policy: PolicyName, era: A2aEra, subject: Subject, stop = false): string[] {
  const r = search({
    configs: scopeConfigs(scope, policy, era),
    subject,
    claims: CLAIMS,
    bounds: scope.bounds,
    ...(stop ? { stopAtFirstBreak: true } : {}),
  });
  return CLAIMS.map((c) => c.name).filter((n) => r.breaks.some((b) => b.claim === n));
}

/** The (policy, era) cells in which the model's client proves every claim. */
const CLEAN = A2A_POLICIES.flatMap((policy) =>
  A2A_ERAS.filter((era) => EXPECTED_BREAKS[`${policy}/${era}`] === undefined).map(
    (era) => [policy, era] as const,
  ),
);

describe('the model client in the A2A world, per policy and era', () => {
  test.each(A2A_POLICIES.flatMap((p) => A2A_ERAS.map((e) => [p, e] as const)))(
    '%s in era %s: the claims it breaks are the era’s',
    (policy, era) => {
      expect(broken(policy, era, {})).toEqual(EXPECTED_BREAKS[`${policy}/${era}`] ?? []);
    },
    60_000,
  );

  test('the 1986 proposal repairs both: the same policies prove every claim there', () => {
    for (const key of Object.keys(EXPECTED_BREAKS)) expect(key.endsWith('/dev-1.1')).toBe(true);
    expect(broken('a2a-client-message', '1986', {})).toEqual([]);
    expect(broken('a2a-zombie', '1986', {})).toEqual([]);
  }, 60_000);
});

describe('A2A mutants are killed where the model’s client proves every claim', () => {
  test.each(A2A_CLIENT_NAMES.filter((c) => c !== 'model'))(
    'client %s',
    (client) => {
      const kill = CLEAN.find(
        ([policy, era]) => broken(policy, era, clientSubject(client), true).length > 0,
      );
      if (client in WORLD_SURVIVORS) expect(kill, WORLD_SURVIVORS[client]).toBeUndefined();
      else expect(kill, `${client} survived every clean cell`).toBeDefined();
    },
    120_000,
  );

  test('the dev-1.1 fallback (stops-on-duplicate-generation) delivers the seam duplicate twice', () => {
    expect(
      broken('a2a-seam-duplicate', 'dev-1.1', clientSubject('stops-on-duplicate-generation')),
    ).toContain('NoUnprovenAcceptance');
    expect(broken('a2a-seam-duplicate', 'dev-1.1', {})).toEqual([]);
  }, 60_000);

  test.each(A2A_SERVER_MUTANTS.map((m) => m.name))(
    'server %s, declared as a2a-sdk, breaks a claim',
    (name) => {
      const kills = A2A_ERAS.map((era) => broken('a2a-sdk', era, { policy: name }));
      for (const era of A2A_ERAS) expect(broken('a2a-sdk', era, {}), era).toEqual([]);
      expect(kills.flat().length, `${name} survived`).toBeGreaterThan(0);
    },
    120_000,
  );
});

describe('verify --binding a2a, small scope', () => {
  const runs: VerifyRun[] = [];
  beforeAll(() => {
    for (const { policy, client } of manifestSearches('a2a'))
      runs.push(verifyOne(scope, policy, client));
  }, 900_000);

  test('the state counts are the manifest’s (docs/verify-manifest.json, bindings.a2a)', () => {
    const manifest = JSON.parse(readFileSync('docs/verify-manifest.json', 'utf8')) as Manifest;
    // A diff here means the A2A world's state space changed: rerun
    // `mcp-resumption verify --binding a2a --scope small --manifest docs/verify-manifest.json`.
    expect(runs.map(manifestRowOf)).toEqual(manifest.bindings?.['a2a']?.small);
  });

  test('--era E --policy P exits 1 on an era’s gap and 0 where every claim is proven', async () => {
    const args = ['verify', '--binding', 'a2a', '--scope', 'small', '--workers', '1'];
    const gap = await runCli([...args, '--era', 'dev-1.1', '--policy', 'a2a-client-message']);
    expect(gap.code).toBe(1);
    expect(gap.out).toContain('NoFalseAlarm           BROKEN');
    const fixed = await runCli([
      ...args,
      '--era',
      '1986',
      '--policy',
      'a2a-client-message',
      '--json',
    ]);
    expect(fixed.code).toBe(0);
    const report = JSON.parse(fixed.out) as { runs: { claims: { proven: boolean }[] }[] };
    expect(report.runs[0]!.claims.every((c) => c.proven)).toBe(true);
  }, 120_000);

  test('bad --era, or --era outside a2a: one line, exit 2', async () => {
    for (const [args, message] of [
      [
        ['--binding', 'a2a', '--era', '2.0'],
        /^--era must be one of 1\.0, dev-1\.1, 1986, got 2\.0\n$/,
      ],
      [['--era', 'dev-1.1'], /^--era goes with --binding a2a\n$/],
      [['--binding', 'a2a', '--policy', 'tasks-honest'], /--policy must be one of a2a-sdk/],
    ] as const) {
      const r = await runCli(['verify', ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err, args.join(' ')).toMatch(message);
    }
  });
});

describe('explore --binding a2a', () => {
  test('runs A2A worlds of every era and reports its binding', async () => {
    const r = await runCli([
      'explore',
      '--binding',
      'a2a',
      '--runs',
      '60',
      '--seed',
      '7',
      '--mutant-runs',
      '0',
    ]);
    expect(r.out).toContain('(binding a2a)');
    expect(r.out).toMatch(/seed 7/);
    // A policy of another binding is refused.
    const bad = await runCli(['explore', '--binding', 'a2a', '--config', 'policy=honest']);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/A2A policies start with a2a-/);
  }, 120_000);
});
