import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/**
 * The test selection for `npm run mutation` (stryker.config.mjs): the machine and trace suites,
 * the two store suites (both stores' contract, with its crash-and-restart case, and the
 * in-process store's own) and the runtime suites, the ones that exercise the mutated files, with
 * a fixed seed so that a mutant is
 * killed (or survives) the same way on every run. `MCPR_SEED` in the environment still wins.
 * (`MCPR_RUNS_SCALE` cannot go below 1, so the run counts stay those of `npm test`.)
 *
 * `MCPR_MUTATION_SUITE=runtime` (`npm run mutation:runtime`) selects the runtime's fast,
 * network-free suites instead: they drive the guard, its options, its id-only rewriter and the
 * replay fence directly (a scripted `fetch`, fake timers), in milliseconds per test, so that
 * each of the runtime's mutants costs well under a second. The loopback suites (real SDK
 * clients, the differential property) stay in `npm test` and in the default selection.
 */
const RUNTIME_FAST = [
  'properties/runtime/guard-direct.test.ts',
  'properties/runtime/guard-options.test.ts',
  'properties/runtime/id-only-blocks.test.ts',
  'properties/runtime/replay-fence.test.ts',
  'properties/runtime/machine-track.test.ts',
  'properties/runtime/raw-forwarding.test.ts',
  'properties/runtime/cursor-index.test.ts',
  // The cursor indexes per session (session-cursors.ts), apart from the loopback R3-1 suite.
  'properties/runtime/session-cursors.test.ts',
  'properties/runtime/decision-core.test.ts',
  'properties/runtime/response-precheck.test.ts',
  'properties/runtime/guard-ids.test.ts',
  // How a failed stream ends its call (endCalls: 'respond'): guard-core.ts, call-endings.ts,
  // call-settlement.ts.
  'properties/runtime/call-settlement.test.ts',
  // The wire readers' own contracts (guard-wire.ts), apart from what the body reader filters.
  'properties/runtime/guard-wire.test.ts',
  // The body's own bookkeeping (guard-body.ts): text as it came or written anew, the tail's
  // bound, the `id"` count, a body the application gives up.
  'properties/runtime/guard-body.test.ts',
  // What a refused resume's error says (guard-requests.ts reads the server's words for it).
  'properties/runtime/error-words.test.ts',
];

/**
 * `MCPR_MUTATION_SUITE=tasks` (`npm run mutation:tasks`): the task-stream suites for the task
 * runtime and the `mcp-tasks` binding: the binding's corpus, property and field-by-field
 * tests, the task log's contract and unit tests, the guard driven directly (scripted answers,
 * a fake clock: task-guard-direct.test.ts, in place of the loopback property of
 * task-guard.test.ts, too slow per mutant), and the fail-closed tests of the fetch, the
 * handler and the guard over loopback.
 */
const TASKS_FAST = [
  'properties/trace/tasks-binding.test.ts',
  'properties/trace/tasks-binding-input.test.ts',
  'properties/trace/tasks-binding.property.test.ts',
  'properties/trace/tasks-binding-words.test.ts',
  'properties/trace/corpus.test.ts',
  'properties/runtime/task-event-log.test.ts',
  'properties/runtime/task-event-log-units.test.ts',
  'properties/runtime/task-guard-direct.test.ts',
  'properties/runtime/task-fail-closed.test.ts',
  'properties/runtime/task-stream-fetch-release.test.ts',
  'properties/runtime/task-runtime-units.test.ts',
  'properties/runtime/task-stream-handler-async.test.ts',
  'properties/runtime/decision-core.test.ts',
];

/**
 * `MCPR_MUTATION_SUITE=core`: the decision core both guards run on (src/runtime/decision-core.ts),
 * against both guards' fast, network-free suites: the SSE guard's (above) and the task guard's
 * driven directly (scripted answers, a fake clock), milliseconds a test.
 */
const CORE_FAST = [...RUNTIME_FAST, 'properties/runtime/task-guard-direct.test.ts'];

/**
 * `MCPR_MUTATION_SUITE=store`: the in-process store (src/runtime/continuity-store.ts) against
 * its own suites: its ids, floor, refusals and acknowledgment (one cell of the matrix over
 * loopback among them), its bound on the streams it indexes, the replay fence built on it, and
 * the store contract (which needs a redis-server, as `npm test` does).
 */
const STORE_FAST = [
  'properties/conformance/continuity-store.test.ts',
  'properties/runtime/continuity-store-bound.test.ts',
  'properties/runtime/replay-fence.test.ts',
  // The store contract both stores keep (its Redis half starts its own server, as in npm test).
  'properties/redis/store-contract.test.ts',
  // Its id pattern, held to the guard's reader of it, and its acknowledgment's head.
  'properties/runtime/guard-ids.test.ts',
  'properties/runtime/ack-head.test.ts',
];

/**
 * `MCPR_MUTATION_TEST_TIMEOUT_MS` overrides the fast selections' test bound (below) for a run on a
 * loaded machine: a test that runs out of its bound fails, which Stryker counts as the mutant
 * killed, so a bound too tight for the machine's load overstates the score (and fails the
 * initial run outright, as it did at a load of 20 on two cores).
 */
const timeoutOverride = process.env.MCPR_MUTATION_TEST_TIMEOUT_MS;
if (timeoutOverride !== undefined && !/^[1-9]\d*$/.test(timeoutOverride))
  throw new Error(
    `MCPR_MUTATION_TEST_TIMEOUT_MS must be a whole number of ms, got ${JSON.stringify(timeoutOverride)}`,
  );

const suite = process.env.MCPR_MUTATION_SUITE;
const coreOnly = suite === 'core';
const runtimeOnly = suite === 'runtime' || coreOnly;
const tasksOnly = suite === 'tasks';

/** The test files of each named selection; any other value runs the default one. */
const SELECTIONS: Readonly<Record<string, readonly string[]>> = {
  core: CORE_FAST,
  runtime: RUNTIME_FAST,
  tasks: TASKS_FAST,
  store: STORE_FAST,
};

const DEFAULT_SELECTION = [
  'properties/machine/**/*.test.ts',
  'properties/trace/**/*.test.ts',
  'properties/conformance/continuity-store.test.ts',
  'properties/redis/store-contract.test.ts',
  // The runtime: the guard (its bugs, its differential property and mutants, its
  // id-only rewriter, its scripted rules) and the replay fence (slow-store).
  'properties/runtime/**/*.test.ts',
  'properties/conformance/guard.test.ts',
  'properties/conformance/slow-store.test.ts',
];

export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: [...((suite !== undefined && SELECTIONS[suite]) || DEFAULT_SELECTION)],
    // The runtime's fast suites need no Redis.
    globalSetup: runtimeOnly || tasksOnly ? [] : base.test?.globalSetup,
    // Their tests take milliseconds: a mutant that hangs a body fails its test in seconds
    // (killed) instead of running into Stryker's timeout and a restart of its worker.
    // The task suites' tests take under a second each (the bounded-body ones under two).
    // (The core's selection runs the task guard's property too: the task suites' bound.)
    ...(tasksOnly || coreOnly ? { testTimeout: 5_000 } : runtimeOnly ? { testTimeout: 3_000 } : {}),
    ...(timeoutOverride !== undefined ? { testTimeout: Number(timeoutOverride) } : {}),
    env: { ...base.test?.env, MCPR_SEED: process.env.MCPR_SEED ?? '1' },
    // Stryker runs vitest in worker threads, which refuse V8 flags (ERR_WORKER_INVALID_EXEC_ARGV):
    // the base config's heap flag would fail the initial run.
    execArgv: [],
  },
});
