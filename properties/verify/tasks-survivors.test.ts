/**
 * The client mutants that the task world leaves out (docs/world.md, "The task-stream world"):
 * none of them can go wrong there, and the exhaustive small scope of every task policy proves it
 * (each survives). Twenty full searches: a file of its own, so that it runs beside the rest of
 * the task-world suite (properties/verify/tasks-world.test.ts) instead of after it.
 */
import { describe, expect, test } from 'vitest';
import { CLIENT_MUTANTS } from '../../model/mutants/client-mutants.js';
import { TASK_POLICIES } from '../../model/world/config.js';
import { shortestCounterexample } from '../../src/verify/sep2694.js';
import { TASK_CLIENT_MUTANTS } from '../../src/verify/spec.js';

describe('verify --binding mcp-tasks, small scope', () => {
  test('the client mutants left out of the task world cannot go wrong there (each survives)', () => {
    const left = CLIENT_MUTANTS.map((m) => m.name).filter((n) => !TASK_CLIENT_MUTANTS.includes(n));
    expect(left.sort()).toEqual(
      [
        'accepts-no-cursor',
        'delayed-forever',
        'drops-cursor',
        'head-ahead-caught-up',
        'ignores-floor',
      ].sort(),
    );
    for (const client of left)
      expect(shortestCounterexample(client, TASK_POLICIES), client).toBeNull();
  }, 600_000);
});
