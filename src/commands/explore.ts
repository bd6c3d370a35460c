/**
 * `mcp-resumption explore`: generate worlds around the model's client, check every claim, and
 * print what was explored, which claims held, the machine coverage and the mutant kill table.
 */
import { WORLD_KINDS, type WorldKind } from '../../model/world/arbitraries.js';
import { bindingOfPolicy, parseConfig } from '../../model/world/config.js';
import { bindingOption } from './verify.js';
import { mutantEntries } from '../../model/mutants/kill-table.js';
import { intOption, parseCommandArgs, UsageError, type Command } from './cli-kit.js';
import { explore, subjectFor } from '../explore/explore.js';
import { SCENARIO_NAMES, tellScenario } from '../explore/scenario.js';
import { formatExploreReport } from '../explore/report.js';

/** Default time budget, in seconds. */
export const DEFAULT_SECONDS = 10;

/** The `explore` subcommand. */
export const exploreCommand: Command = {
  name: 'explore',
  summary: 'explore simulated worlds around the client machine, check the claims, kill mutants',
  help: `Usage: mcp-resumption explore [options]

Generates worlds (a server, a network and a client around the client machine, on a virtual
clock) and interleavings of Emit, Evict, Restart (or Restart(2026-07-28), a rolling upgrade),
SaturateApp/ReleaseApp, Drain, Advance(ms), Disconnect and Reconnect; checks NoUnprovenAcceptance,
NoSilentPartialResult, NoFalseAlarm, Delivery and NoWaitAfterFailure on each; then searches the mutant zoo and prints its kill table. The report opens
with a one-line summary. Progress goes to stderr. Exit status: 0 all claims held, 1 a claim broke (its counterexample is printed), 2 bad
options.

Options:
  --seconds N        time budget in seconds (default ${DEFAULT_SECONDS}; 85% worlds, the rest mutants)
  --runs N           explore N worlds instead of a time budget
  --seed N           fast-check seed (default: fresh; always printed)
  --config K=V,...   a fixed world configuration over the defaults, e.g.
                     D=64,K=15000,T=90000,B=8,I=2000,R=1000,P=30000,Q=0,N=30,
                     keepalive=shared|independent,read=coupled|decoupled,idleOn=bytes|events,
                     durable=true|false,onRestart=404|recreate|new-epoch|not-durable,
                     policy=honest|honest-reject|head|..., ack=true|false,
                     priming=none|open|all
                     (Q: the polling server ends a resumed stream idle for Q ms, 0 never;
                     ack: the honest server states its replay floor; priming: which streams
                     start with a priming event; P: the proof budget of an episode)
  --kind KIND        worlds to generate: ${WORLD_KINDS.join(', ')} (default mixed)
  --binding B        mcp-sse (default) or mcp-tasks: generated worlds are task-stream worlds
                     (SEP-2694): a task policy (tasks-honest, tasks-gone-410,
                     tasks-duplicates where the kind's server is honest; tasks-restarted-counter,
                     tasks-skip where it is not) answers tasks/stream, and the client reads
                     through the mcp-tasks binding into the same machine; the kill table
                     searches the binding's mutants and the client mutants in those worlds.
                     a2a: generated worlds are A2A worlds in every era (era=1.0|dev-1.1|1986):
                     an A2A policy (a2a-sdk, a2a-seam-duplicate, a2a-client-message where the
                     kind's server is honest; a2a-seam-loss, a2a-zombie where it is not)
                     answers SubscribeToTask, and the client reads through the a2a binding of
                     the world's era (docs/world.md, "The A2A world")
  --mutant NAME      explore a mutant instead of the model's client
  --path P           replay: the counterexample path of a report (with --seed)
  --replay-path R    replay: the replayPath of the command sequence
  --mutant-runs N    runs per probe of the kill table (default 1000; 0: no kill table)
  --scenario NAME    instead of exploring, run one of the seed's incidents and print its
                     timeline and claims: ${SCENARIO_NAMES.join(', ')}
                     (with --mutant trusts-any-200: the naive client)
  --brief            fold runs of routine timeline lines (events emitted, arriving in
                     order, time passing) into one line each, with a legend
  --mermaid          print the timeline as a Mermaid sequence diagram (client, server,
                     event log) instead of text
  --verbose          list every machine transition the run did not take
  --help             this text

A counterexample and a scenario end with a "playground:" line: a world string that
\`npm run playground\` loads (docs/playground.md).`,
  async run(argv, io) {
    const { values } = parseCommandArgs('explore', argv, {
      seconds: { type: 'string' },
      runs: { type: 'string' },
      seed: { type: 'string' },
      config: { type: 'string' },
      kind: { type: 'string' },
      mutant: { type: 'string' },
      path: { type: 'string' },
      'replay-path': { type: 'string' },
      'mutant-runs': { type: 'string' },
      scenario: { type: 'string' },
      brief: { type: 'boolean' },
      mermaid: { type: 'boolean' },
      verbose: { type: 'boolean' },
      binding: { type: 'string' },
    });
    const binding = bindingOption(values);
    if (binding !== 'mcp-sse' && (values.mutant !== undefined || values.scenario !== undefined))
      throw new UsageError(
        `--mutant and --scenario explore the mcp-sse world; the ${binding} mutants are killed by verify --binding ${binding}`,
      );
    if (values.brief === true && values.mermaid === true)
      throw new UsageError('--brief and --mermaid exclude each other');
    const shown = { brief: values.brief === true, mermaid: values.mermaid === true };
    const seconds = intOption('seconds', values.seconds as string | undefined, DEFAULT_SECONDS);
    if (seconds === 0) throw new UsageError('--seconds must be at least 1');
    const runsText = values.runs as string | undefined;
    const runs = runsText === undefined ? undefined : intOption('runs', runsText, 0);
    if (runs === 0) throw new UsageError('--runs must be at least 1');
    const seed = intOption('seed', values.seed as string | undefined, Date.now() % 2_147_483_647);
    const kind = (values.kind as string | undefined) ?? 'mixed';
    if (!(WORLD_KINDS as readonly string[]).includes(kind))
      throw new UsageError(`--kind must be one of ${WORLD_KINDS.join(', ')}, got ${kind}`);
    const mutant = values.mutant as string | undefined;
    if (mutant !== undefined && !mutantEntries().some((e) => e.name === mutant))
      throw new UsageError(
        `--mutant must be one of ${mutantEntries()
          .map((e) => e.name)
          .join(', ')}`,
      );
    const scenario = values.scenario as string | undefined;
    if (scenario !== undefined) {
      if (!SCENARIO_NAMES.includes(scenario))
        throw new UsageError(`--scenario must be one of ${SCENARIO_NAMES.join(', ')}`);
      const { subject } = subjectFor(mutant, 'mixed');
      const told = tellScenario(scenario, subject, mutant ?? "the model's client", shown);
      io.out(told.text + '\n');
      return told.ok ? 0 : 1;
    }
    let config;
    if (values.config !== undefined) {
      try {
        config = parseConfig(values.config as string);
      } catch (e) {
        throw new UsageError(`--config: ${(e as Error).message}`);
      }
      // A fixed configuration leaves the kind nothing to generate: say so rather than run
      // worlds of a kind the user did not ask for (issue 32, D7).
      if (values.kind !== undefined)
        throw new UsageError(
          `--config fixes the world's configuration, so --kind ${kind} would be ignored; give one of them`,
        );
      if (bindingOfPolicy(config.policy) !== binding)
        throw new UsageError(
          `--config policy=${config.policy} is not a policy of binding ${binding} (task policies start with tasks- and go with --binding mcp-tasks, A2A policies start with a2a- and go with --binding a2a)`,
        );
    }
    const path = values.path as string | undefined;
    if (path !== undefined && !/^\d+(:\d+)*$/.test(path))
      throw new UsageError('--path must look like 12:0:3');
    const killRuns = intOption('mutant-runs', values['mutant-runs'] as string | undefined, 1_000);
    const tty = process.stderr.isTTY === true;
    const report = explore({
      seconds,
      seed,
      kind: kind as WorldKind,
      killRuns,
      ...(binding !== 'mcp-sse' ? { binding } : {}),
      ...(runs !== undefined ? { runs } : {}),
      ...(config ? { config } : {}),
      ...(mutant !== undefined ? { mutant } : {}),
      ...(path !== undefined ? { path } : {}),
      ...(values['replay-path'] !== undefined
        ? { replayPath: values['replay-path'] as string }
        : {}),
      progress: (line) => io.err(tty ? `\r${line}\x1b[K` : `${line}\n`),
    });
    if (tty) io.err('\n');
    io.out(formatExploreReport(report, shown, values.verbose === true) + '\n');
    return report.counterexample || report.error ? 1 : 0;
  },
};
