/**
 * The task-stream world (SEP-2694) under exhaustive search: a task-stream receiver answers
 * `tasks/stream` calls, and the client reads its input through the mcp-tasks binding's
 * translator into the same machine. Within the small scope the model's client proves every
 * claim against every task policy; every task mutant (the binding mutants, and the client
 * mutants that can go wrong there) is killed with a shortest counterexample; the state counts
 * are the manifest's. Deterministic: no seed.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, test } from 'vitest';
import { noUnprovenAcceptance } from '../../model/claims/no-unproven-acceptance.js';
import { BINDING_MUTANTS } from '../../model/mutants/binding-mutants.js';
import { SCOPES, scopeConfigs } from '../../model/verify/scope.js';
import { TASK_HONEST_POLICIES, TASK_POLICIES } from '../../model/world/config.js';
import { formatVerifyCounterexample } from '../../src/verify/counterexample.js';
import { search } from '../../src/verify/engine.js';
import { manifestRowOf, manifestSearches, type Manifest } from '../../src/verify/manifest.js';
import { verifyOne, type VerifyRun } from '../../src/verify/run.js';
import { shortestCounterexample } from '../../src/verify/sep2694.js';
import { TASK_CLIENT_NAMES } from '../../src/verify/spec.js';
import { runCli } from '../support/cli.js';

const scope = SCOPES.small;
const runs: VerifyRun[] = [];

beforeAll(() => {
  for (const { policy, client } of manifestSearches('mcp-tasks'))
    runs.push(verifyOne(scope, policy, client));
}, 600_000);

/** The shortest kill of `client` over every task policy (the first policy on a tie). */
const shortestKill = (client: string) => shortestCounterexample(client, TASK_POLICIES);

describe('verify --binding mcp-tasks, small scope', () => {
  test.each(TASK_POLICIES)('model client against %s: every claim proven', (policy) => {
    const r = runs.find((x) => x.client === 'model' && x.policy === policy)!;
    expect(r.complete).toBe(true);
    for (const c of r.claims) {
      expect(c.counterexample?.why ?? 'proven', `${c.name} against ${policy}`).toBe('proven');
      if (c.name === 'NoUnprovenAcceptance' || c.name === 'NoSilentPartialResult')
        expect(c.applied).toBeGreaterThan(0);
      // Not vacuous where the receiver keeps the SEP's contract: valid worlds are judged.
      else if (TASK_HONEST_POLICIES.includes(policy)) expect(c.applied).toBeGreaterThan(1_000);
    }
  });

  test('the state counts are the manifest’s (docs/verify-manifest.json, bindings.mcp-tasks)', () => {
    const manifest = JSON.parse(readFileSync('docs/verify-manifest.json', 'utf8')) as Manifest;
    // A diff here means the task world's state space changed: rerun
    // `mcp-resumption verify --binding mcp-tasks --scope small --manifest docs/verify-manifest.json`.
    expect(runs.map(manifestRowOf)).toEqual(manifest.bindings?.['mcp-tasks']?.small);
  });

  test.each(TASK_CLIENT_NAMES.filter((c) => c !== 'model'))(
    'task mutant %s is killed with a shortest counterexample, printed readable',
    (client) => {
      const cx = shortestKill(client);
      expect(cx, `${client} survived the small scope of every task policy`).not.toBeNull();
      const text = formatVerifyCounterexample(cx!);
      expect(text).toMatch(/^counterexample \(\d+ command\(s\), \d+ move\(s\) deep, shortest/);
      expect(text).toContain(`subject: ${client}`);
      expect(text).toMatch(/policy=tasks-/);
      expect(text).toContain(`claim broken: ${cx!.claim}: ${cx!.why}`);
      expect(text).not.toContain('held on replay');
      expect(text).toMatch(/replay: npx mcp-resumption verify --replay '.*' --config .* --client /);
    },
    120_000,
  );

  test('a call without after is cursor-dropped under the real binding: the missing-after kill is the binding’s', () => {
    // The mutant's worlds run a client that omits after; with the real binding nothing it
    // delivers is ever unproven (it fails the resume as cursor-dropped instead).
    for (const policy of TASK_POLICIES) {
      const r = search({
        configs: scopeConfigs(scope, policy),
        subject: { behaviour: { omitsCursor: true } },
        claims: [noUnprovenAcceptance],
        bounds: scope.bounds,
      });
      expect(r.breaks, policy).toEqual([]);
    }
  });
});

/** `verify --binding mcp-tasks --scope small --workers 1`, and more arguments. */
const verifyTasks = (...args: string[]) =>
  runCli(['verify', '--binding', 'mcp-tasks', '--scope', 'small', '--workers', '1', ...args]);

describe('verify --binding on the command line', () => {
  test('--binding mcp-tasks --policy P --json exits 0 with every claim proven', async () => {
    const r = await verifyTasks('--policy', 'tasks-gone-410', '--json');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.out) as {
      runs: { policy: string; claims: { proven: boolean }[] }[];
    };
    expect(report.runs.map((x) => x.policy)).toEqual(['tasks-gone-410']);
    expect(report.runs[0]!.claims.every((c) => c.proven)).toBe(true);
  });

  test('a task mutant exits 1, and its replay breaks the claim again', async () => {
    const r = await verifyTasks(
      '--policy',
      'tasks-restarted-counter',
      '--client',
      'tasks-duplicate-proves',
    );
    expect(r.code).toBe(1);
    expect(r.out).toContain('claim broken: NoUnprovenAcceptance');
    const replay = /replay: npx mcp-resumption verify (.*)$/m.exec(r.out)![1]!;
    const args = replay.match(/'[^']*'|\S+/g)!.map((a) => a.replace(/^'|'$/g, ''));
    const again = await runCli(['verify', ...args]);
    expect(again.code).toBe(1);
    expect(again.out).toContain('NoUnprovenAcceptance: BROKEN');
  });

  test('an unknown binding, or a policy or client of the other binding: one line, exit 2', async () => {
    for (const [args, message] of [
      [
        ['--binding', 'mcp-grpc'],
        /^--binding must be one of mcp-sse, mcp-tasks, a2a, got mcp-grpc\n$/,
      ],
      [['--binding', 'mcp-tasks', '--policy', 'honest'], /--policy must be one of tasks-honest/],
      [
        ['--binding', 'mcp-tasks', '--client', 'drops-cursor'],
        /--client must be one of model, tasks-/,
      ],
      [['--policy', 'tasks-honest'], /--policy must be one of honest/],
    ] as const) {
      const r = await runCli(['verify', ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(r.err, args.join(' ')).toMatch(message);
    }
  });

  test('--help documents --binding and the task policies and clients', async () => {
    const r = await runCli(['verify', '--help']);
    expect(r.out).toContain('--binding B');
    for (const name of [...TASK_POLICIES, ...BINDING_MUTANTS.map((m) => m.name)])
      expect(r.out).toContain(name);
  });
});
