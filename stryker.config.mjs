// @ts-check
import process from 'node:process';
/**
 * Mutation testing of the decision core: `npm run mutation` (not part of `npm test`; a run over
 * all files below takes tens of minutes). Narrow it with `npm run mutation -- --mutate <file>`.
 * The tests are the machine, trace, store and runtime suites (vitest.mutation.config.ts), with a
 * fixed seed; the store suites need a redis-server (they start their own). The runtime suites
 * run real SDK clients over loopback, so mutate runtime files one at a time. Reports: the score
 * per file on the console, reports/mutation/index.html, and one JSON report per run in
 * reports/mutation/runs/ (merged by `npm run mutation:docs`).
 *
 * Task streams: `npm run mutation:tasks` mutates the `mcp-tasks` binding and the task runtime
 * (fetch, handler, errors, event log, the guard's track and decisions) against the task suites
 * (`MCPR_MUTATION_SUITE=tasks`: the binding's corpus, property and field tests, the task log's
 * contract and unit tests, the guard driven directly with a fake clock, the fail-closed tests
 * over loopback). Run it a file at a time (`--mutate FILE`): docs/mutation.md, "Task streams".
 *
 * The runtime: `npm run mutation:runtime` mutates the guard's files against the runtime's
 * fast, network-free suites only (`MCPR_MUTATION_SUITE=runtime`, see vitest.mutation.config.ts:
 * a scripted fetch and a fake clock, milliseconds a test), about 920 mutants for the guard;
 * narrow it with `-- --mutate <file>`. Not mutated: src/runtime-mutants/ (the runtime's
 * mutant zoo: deliberately wrong guards and readers, whose detection properties/runtime/ asserts) and src/runtime/index.ts (re-exports only, no code).
 *
 * The in-process store (src/runtime/continuity-store.ts) has its own selection (its contract
 * suite needs a redis-server): `MCPR_MUTATION_SUITE=store npx stryker run --mutate
 * src/runtime/continuity-store.ts`.
 *
 * The decision core both guards run on (src/runtime/decision-core.ts) is mutated against both
 * guards' fast suites: `MCPR_MUTATION_SUITE=core npx stryker run --concurrency 1 --mutate
 * src/runtime/decision-core.ts` (docs/mutation.md).
 */
/**
 * The run's name, from the files it mutates (`--mutate a.ts,b.ts`): each run keeps its own JSON
 * report in reports/mutation/runs/, and `npm run mutation:docs` merges them (newest per file), so
 * scores measured file by file add up to one table.
 */
function runName(argv) {
  const i = argv.findIndex((a) => a === '--mutate' || a === '-m');
  const inline = argv.find((a) => a.startsWith('--mutate='));
  const files = inline ? inline.slice('--mutate='.length) : i >= 0 ? argv[i + 1] : undefined;
  if (!files) return 'all';
  const name = files
    .split(',')
    .map((f) => f.replace(/\.ts$/, '').replace(/[^A-Za-z0-9]+/g, '-'))
    .join('+');
  return name.length > 120 ? `${name.slice(0, 100)}-and-more` : name;
}

/**
 * The command this run was started by, environment included, for docs/mutation-runs.json: kept in
 * the JSON report's `config` (Stryker does not warn about an option whose name ends in
 * `_comment`).
 */
function commandLine(argv, env) {
  const vars = ['MCPR_MUTATION_SUITE', 'MCPR_MUTATION_TEST_TIMEOUT_MS', 'MCPR_SEED']
    .filter((v) => env[v] !== undefined)
    .map((v) => `${v}=${env[v]} `)
    .join('');
  return `${vars}npx stryker ${argv.slice(2).join(' ')}`.trim();
}

/**
 * The task streams' files (SEP-2694), mutated by `npm run mutation:tasks` against their own
 * suites; docs/mutation.md shows them in a block of their own ("Task streams").
 */
export const taskFiles = [
  'model/bindings/mcp-tasks.ts',
  'src/runtime/task-stream-fetch.ts',
  'src/runtime/task-stream-handler.ts',
  'src/runtime/task-stream-error.ts',
  'src/runtime/task-guard-track.ts',
  'src/runtime/task-guard-runtime.ts',
  'src/runtime/task-event-log.ts',
];

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
const config = {
  command_comment: commandLine(process.argv, process.env),
  mutate: [
    'model/guards.ts',
    'model/client-machine.ts',
    'model/reasons.ts',
    'src/reference.ts',
    'src/trace/checker.ts',
    'src/trace/format.ts',
    'src/trace/engine.ts',
    'src/runtime/continuity-store.ts',
    'src/redis/store.ts',
    // The verdict path: outcomes (unsafe-accept), rules, run, the report (exit 1), reading,
    // rendering, the library entry and the command.
    'model/outcomes.ts',
    'model/rules.ts',
    'model/run.ts',
    'src/trace/report.ts',
    'src/trace/read.ts',
    'src/trace/render.ts',
    'src/trace/check.ts',
    'src/commands/check.ts',
    'src/runtime/continuity-guard.ts',
    'src/runtime/guard-core.ts',
    // The decision core both guards run on: `MCPR_MUTATION_SUITE=core` (both guards' fast suites).
    'src/runtime/decision-core.ts',
    'src/runtime/guard-body.ts',
    'src/runtime/guard-requests.ts',
    // How a failed stream ends its call (call-settlement.test.ts in the runtime selection).
    'src/runtime/call-settlement.ts',
    'src/runtime/call-endings.ts',
    'src/runtime/guard-wire.ts',
    'src/runtime/guard-ids.ts',
    'src/runtime/guard-track.ts',
    'src/runtime/guard-options.ts',
    'src/runtime/id-only-blocks.ts',
    'src/runtime/machine-track.ts',
    'src/runtime/cursor-index.ts',
    'src/runtime/session-cursors.ts',
    'src/runtime/replay-fence.ts',
    // Task streams (SEP-2694): the binding and the task runtime, run with their own suites
    // (`npm run mutation:tasks`, MCPR_MUTATION_SUITE=tasks in vitest.mutation.config.ts).
    ...taskFiles,
  ],
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts' },
  coverageAnalysis: 'perTest',
  // The initial run of every suite takes minutes on a loaded 2-core machine; Stryker's default
  // (5 minutes) ended runs before a mutant was tried.
  dryRunTimeoutMinutes: 20,
  reporters: ['clear-text', 'html', 'json', 'progress'],
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  jsonReporter: { fileName: `reports/mutation/runs/${runName(process.argv)}.json` },
  clearTextReporter: { allowEmojis: false },
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
};

export default config;
