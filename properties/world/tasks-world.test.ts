/**
 * The task-stream world under random exploration (`explore --binding mcp-tasks`): generated
 * worlds served by task-stream receivers, the client reading through the mcp-tasks binding into
 * the same machine. The four claims hold for the model's client; a task mutant is caught, with
 * its seed printed.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { BINDING_MUTANTS } from '../../model/mutants/binding-mutants.js';
import { CLAIMS } from '../../model/claims/index.js';
import { isTaskPolicy, parseConfig } from '../../model/world/config.js';
import { parseCommands } from '../../src/verify/counterexample.js';
import { newStats, runWorld, worldProperty } from '../../model/world/property.js';
import { runCli } from '../support/cli.js';
import { announceSeed } from '../support/seed.js';

const SEED = announceSeed('properties/world/tasks-world.test.ts');

describe('random exploration of the task-stream world', () => {
  test('the four claims hold for the model client in every generated task world', () => {
    const stats = newStats();
    const prop = worldProperty({ kind: 'mixed', binding: 'mcp-tasks', stats });
    const details = fc.check(prop, { seed: SEED, numRuns: 400 });
    expect(details.failed, `seed ${SEED}: ${String(details.errorInstance)}`).toBe(false);
    for (const name of ['NoUnprovenAcceptance', 'NoSilentPartialResult'])
      expect(stats.applied[name]).toBe(400);
    expect(stats.applied['NoFalseAlarm'] ?? 0).toBeGreaterThan(0);
    expect(stats.applied['Delivery'] ?? 0).toBeGreaterThan(0);
  }, 300_000);

  test.each(
    BINDING_MUTANTS.filter((m) => m.name === 'tasks-duplicate-proves').map((m) => [m.name, m]),
  )(
    'random exploration catches %s',
    (_name, m) => {
      const prop = worldProperty({ kind: 'mixed', binding: 'mcp-tasks', subject: m.subject });
      const details = fc.check(prop, { seed: SEED, numRuns: 3_000 });
      expect(details.failed, `seed ${SEED}: the mutant survived 3,000 task worlds`).toBe(true);
      const [cfg] = details.counterexample!;
      expect(isTaskPolicy(cfg.policy)).toBe(true);
    },
    300_000,
  );
});

describe('what random exploration found', () => {
  test('a call again before any event keeps its episode’s budget across empty polls (explore --binding mcp-tasks, seed 1019244756)', () => {
    // The client has no cursor (no priming, nothing delivered), the receiver retains nothing
    // and closes each quiet stream: every poll is a call without after, which the binding
    // resumes from seq 0. The budget must run from the first of them, not restart at each.
    const cfg = parseConfig(
      'D=inf,K=1000,T=1001,B=1,I=0,R=100,P=120000,Q=30000,N=1,keepalive=shared,read=decoupled,idleOn=bytes,durable=false,onRestart=404,policy=tasks-honest,ack=true,priming=none',
    );
    const w = runWorld(cfg, parseCommands('Disconnect,Emit,Evict,SaturateApp'));
    for (const claim of CLAIMS) expect(claim.check(w).why, claim.name).not.toMatch(/waits forever/);
    expect(w.client.done).toBe('failed');
    expect(w.client.error).toMatch(/^resumption-failed: /);
  });
});

describe('explore --binding', () => {
  test('explores task worlds, says so, and its rerun line keeps the binding', async () => {
    const r = await runCli(['explore', '--binding', 'mcp-tasks', '--runs', '150', '--seed', '7']);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('worlds: mixed (binding mcp-tasks)');
    expect(r.out).toContain('summary: every claim held over 150 worlds');
    expect(r.out).toContain(
      'rerun: npx mcp-resumption explore --seed 7 --runs 150 --binding mcp-tasks',
    );
  }, 120_000);

  test('an unknown binding, or an SSE policy under mcp-tasks: one line, exit 2', async () => {
    for (const [args, message] of [
      [
        ['--binding', 'mcp-grpc'],
        /^--binding must be one of mcp-sse, mcp-tasks, a2a, got mcp-grpc\n$/,
      ],
      [
        ['--binding', 'mcp-tasks', '--config', 'policy=honest'],
        /is not a policy of binding mcp-tasks/,
      ],
      [['--config', 'policy=tasks-skip'], /is not a policy of binding mcp-sse/],
      [['--binding', 'mcp-tasks', '--mutant', 'trusts-any-200'], /explore the mcp-sse world/],
    ] as const) {
      const r = await runCli(['explore', '--runs', '1', ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(r.err, args.join(' ')).toMatch(message);
    }
  });

  test('--help documents --binding', async () => {
    const r = await runCli(['explore', '--help']);
    expect(r.out).toContain('--binding B');
    expect(r.out).toContain('tasks-restarted-counter');
  });
});
