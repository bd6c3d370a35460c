/**
 * `mcp-resumption verify`: exhaustive small-scope checking, the way TLC checks a model. Every
 * reachable state of the scope is visited breadth-first; each claim is proven within the
 * scope or broken with a shortest counterexample. Also: `--replay` (a counterexample's
 * commands in a fixed configuration), `--manifest` (write the state counts), `--docs`
 * (regenerate docs/verify.md's tables from a real run).
 */
import {
  A2A_ERAS,
  A2A_POLICIES,
  type A2aEra,
  parseConfig,
  policiesOf,
  POLICIES,
  TASK_POLICIES,
  type PolicyName,
} from '../../model/world/config.js';
import { BINDING_NAMES } from '../../model/bindings/index.js';
import { SCOPE_NAMES, scopeNamed, type Scope } from '../../model/verify/scope.js';
import { parseCommandArgs, UsageError, type Command, type CommandIO } from './cli-kit.js';
import { formatReplay, parseCommands } from '../verify/counterexample.js';
import { writeManifest } from '../verify/manifest.js';
import { writeVerifyDocs } from '../verify/docs.js';
import { writeSepDocs } from '../verify/sep2694.js';
import { writeA2aDocs } from '../verify/a2a-counterexamples.js';
import { defaultWorkers } from '../verify/parallel.js';
import { formatVerifyReport, progressLine, verifyJson } from '../verify/report.js';
import { CLIENT_NAMES, clientSubject, verifyOne, type VerifyRun } from '../verify/run.js';
import { A2A_CLIENT_NAMES, clientNamesOf, TASK_CLIENT_NAMES } from '../verify/spec.js';

/** The scope `verify` searches unless told otherwise. */
export const DEFAULT_SCOPE = 'medium';

/** The `--binding` of the options: a known name (default mcp-sse), else a usage error. */
export function bindingOption(values: Record<string, string | boolean | undefined>): string {
  const binding = (values.binding as string | undefined) ?? 'mcp-sse';
  // Every binding has a simulated world (a2a's: docs/world.md, "The A2A world").
  if (!BINDING_NAMES.includes(binding))
    throw new UsageError(`--binding must be one of ${BINDING_NAMES.join(', ')}, got ${binding}`);
  return binding;
}

function replay(
  values: Record<string, string | boolean | undefined>,
  client: string,
  io: CommandIO,
): number {
  let commands;
  try {
    commands = parseCommands(values.replay as string);
  } catch (e) {
    throw new UsageError(`--replay: ${(e as Error).message}`);
  }
  if (values.config === undefined) throw new UsageError('--replay needs --config');
  let cfg;
  try {
    cfg = parseConfig(values.config as string);
  } catch (e) {
    throw new UsageError(`--config: ${(e as Error).message}`);
  }
  const server = values.server as string | undefined;
  // The world's binding is its declared policy's: a task policy speaks mcp-tasks.
  const servers = [...POLICIES, ...TASK_POLICIES, ...A2A_POLICIES];
  if (server !== undefined && !(servers as readonly string[]).includes(server))
    throw new UsageError(`--server must be one of ${servers.join(', ')}, got ${server}`);
  const subject = {
    ...clientSubject(client),
    ...(server !== undefined ? { policy: server as PolicyName } : {}),
  };
  const { text, broken } = formatReplay(cfg, commands, client, subject, server);
  io.out(text + '\n');
  return broken > 0 ? 1 : 0;
}

/** The `verify` subcommand. */
export const verifyCommand: Command = {
  name: 'verify',
  summary: 'exhaustive small-scope checking: prove the claims within a scope, or break them',
  help: `Usage: mcp-resumption verify [--binding B] [--scope small|medium|large] [--policy P] [--client C] [--workers N] [--json]

Visits every reachable state of the simulated world within a scope, breadth-first, as TLC
does: the moves are the named commands (Emit, Emit(other), Evict, Restart, SaturateApp,
ReleaseApp, Drain, Disconnect, Disconnect(silent), Reconnect) and Tick, time passing to the
next deadline. States are canonicalised (times relative to now, ground truth as the claims
read it) and deduplicated by a 64-bit fingerprint. Each distinct state is ended with the
world's epilogue and judged by every claim. Prints distinct states, states generated, depth,
distinct states per minute and bytes per state, and each claim proven within the scope or
broken, with its shortest counterexample (a numbered timeline and a replay command).
Progress goes to stderr every second. The search is deterministic: no seed.
Exit status: 0 every claim proven, 1 a claim broken, 2 bad options.

Options:
  --binding B        ${BINDING_NAMES.join(', ')} (default mcp-sse): the protocol of the world.
                     mcp-tasks: a task-stream receiver (SEP-2694) answers tasks/stream calls,
                     and the client reads its input through the mcp-tasks binding's
                     translator into the same machine (docs/world.md, "The task-stream world").
                     a2a: an A2A server answers SubscribeToTask in each era of the scope
                     (1.0, dev-1.1, 1986), and the client reads through that era's a2a
                     binding (docs/world.md, "The A2A world")
  --scope S          ${SCOPE_NAMES.join(', ')} (default ${DEFAULT_SCOPE}); see docs/verify.md
  --policy P         the server policy (it runs and declares it); default: every policy of
                     the binding: ${POLICIES.join(', ')};
                     under mcp-tasks: ${TASK_POLICIES.join(', ')};
                     under a2a: ${A2A_POLICIES.join(', ')}
  --client C         ${CLIENT_NAMES.join(', ')} (default model);
                     under mcp-tasks: ${TASK_CLIENT_NAMES.join(', ')};
                     under a2a: ${A2A_CLIENT_NAMES.join(', ')}
  --era E            with --binding a2a: only the configurations of era E (${A2A_ERAS.join(', ')});
                     default: every era
  --json             the report as JSON
  --max-states N     stop a search after N distinct states (the report says INCOMPLETE)
  --workers N        worker threads, each owning a range of state fingerprints (default:
                     one per core, here ${defaultWorkers()}); any number gives the same result
  --replay CMDS      replay commands (as a counterexample prints them) with --config K=V,...,
                     [--client C] and [--server P] (the policy the server really runs)
  --manifest FILE    write the distinct states and depth of this scope's manifest rows
                     (every policy with the model's client, every client mutant against
                     honest; with --binding mcp-tasks, that world's rows) into FILE
                     (docs/verify-manifest.json)
  --docs FILE        regenerate the generated blocks of FILE (docs/verify.md): the manifest
                     table, the exhaustive-against-random mutant table, the unreached
                     transitions; runs the mutant searches in --scope (default small).
                     With --binding mcp-tasks: the counterexample blocks of the proposed
                     changes to SEP-2694 (docs/spec-changes.md); with --binding a2a: the
                     blocks of A2A's counterexamples CE1 to CE5 and of the proposal for
                     A2A's epic #1986 (docs/a2a-counterexamples.md, docs/spec-changes.md)
  --help             this text`,
  async run(argv, io) {
    const { values } = parseCommandArgs('verify', argv, {
      scope: { type: 'string' },
      policy: { type: 'string' },
      client: { type: 'string' },
      json: { type: 'boolean' },
      'max-states': { type: 'string' },
      workers: { type: 'string' },
      replay: { type: 'string' },
      config: { type: 'string' },
      server: { type: 'string' },
      manifest: { type: 'string' },
      docs: { type: 'string' },
      binding: { type: 'string' },
      era: { type: 'string' },
    });
    const binding = bindingOption(values);
    const client = (values.client as string | undefined) ?? 'model';
    const clients =
      values.replay !== undefined
        ? [...new Set([...CLIENT_NAMES, ...TASK_CLIENT_NAMES, ...A2A_CLIENT_NAMES])]
        : clientNamesOf(binding);
    if (!clients.includes(client))
      throw new UsageError(
        `--client must be one of ${clients.join(', ')}${binding === 'mcp-sse' ? '' : ` under --binding ${binding}`}, got ${client}`,
      );
    if (values.replay !== undefined) return replay(values, client, io);
    if (values.config !== undefined || values.server !== undefined)
      throw new UsageError('--config and --server go with --replay');
    const scopeName =
      (values.scope as string | undefined) ?? (values.docs ? 'small' : DEFAULT_SCOPE);
    const scope: Scope | undefined = scopeNamed(scopeName);
    if (!scope)
      throw new UsageError(`--scope must be one of ${SCOPE_NAMES.join(', ')}, got ${scopeName}`);
    const policy = values.policy as string | undefined;
    const bindingPolicies = policiesOf(binding);
    if (policy !== undefined && !(bindingPolicies as readonly string[]).includes(policy))
      throw new UsageError(
        `--policy must be one of ${bindingPolicies.join(', ')}${binding === 'mcp-sse' ? '' : ` under --binding ${binding}`}, got ${policy}`,
      );
    const eraText = values.era as string | undefined;
    if (eraText !== undefined && binding !== 'a2a')
      throw new UsageError('--era goes with --binding a2a');
    if (eraText !== undefined && !(A2A_ERAS as readonly string[]).includes(eraText))
      throw new UsageError(`--era must be one of ${A2A_ERAS.join(', ')}, got ${eraText}`);
    const era = eraText as A2aEra | undefined;
    const maxText = values['max-states'] as string | undefined;
    if (maxText !== undefined && !/^[1-9]\d*$/.test(maxText))
      throw new UsageError(
        `--max-states must be a positive integer, got ${JSON.stringify(maxText)}`,
      );
    const maxStates = maxText === undefined ? undefined : Number(maxText);
    const workersText = values.workers as string | undefined;
    if (workersText !== undefined && !/^[1-9]\d{0,2}$/.test(workersText))
      throw new UsageError(
        `--workers must be a positive integer (at most 999), got ${JSON.stringify(workersText)}`,
      );
    const workers = workersText === undefined ? defaultWorkers() : Number(workersText);
    const tty = process.stderr.isTTY === true;
    const progress = (line: string) => io.err(tty ? `\r${line}\x1b[K` : `${line}\n`);
    if (values.manifest !== undefined) {
      await writeManifest(values.manifest as string, scope, progress, workers, binding);
      if (tty) io.err('\n');
      io.out(
        `manifest: scope ${scope.name}${binding === 'mcp-sse' ? '' : ` of ${binding}`} written to ${values.manifest as string}\n`,
      );
      return 0;
    }
    if (values.docs !== undefined) {
      if (binding === 'a2a') {
        try {
          await writeA2aDocs(values.docs as string, progress);
        } catch (e) {
          throw new UsageError(`--docs: ${(e as Error).message}`);
        }
        if (tty) io.err('\n');
        io.out(`docs: the A2A counterexample blocks of ${values.docs as string} rewritten\n`);
        return 0;
      }
      if (binding !== 'mcp-sse') {
        try {
          await writeSepDocs(values.docs as string, progress);
        } catch (e) {
          throw new UsageError(`--docs: ${(e as Error).message}`);
        }
        if (tty) io.err('\n');
        io.out(`docs: the SEP-2694 counterexample blocks of ${values.docs as string} rewritten\n`);
        return 0;
      }
      await writeVerifyDocs(values.docs as string, scope, progress);
      if (tty) io.err('\n');
      io.out(
        `docs: generated blocks of ${values.docs as string} rewritten (scope ${scope.name})\n`,
      );
      return 0;
    }
    const policies = policy !== undefined ? [policy as PolicyName] : bindingPolicies;
    const runs: VerifyRun[] = [];
    for (const p of policies) {
      const label = `${scope.name}/${p}/${client}`;
      runs.push(
        verifyOne(scope, p, client, {
          onProgress: (x) => progress(progressLine(label, x)),
          workers,
          ...(maxStates !== undefined ? { maxStates } : {}),
          ...(era !== undefined ? { era } : {}),
        }),
      );
    }
    if (tty) io.err('\n');
    io.out(
      (values.json
        ? JSON.stringify(verifyJson(scope, runs), null, 2)
        : formatVerifyReport(scope, runs)) + '\n',
    );
    return runs.some((r) => r.claims.some((c) => !c.proven)) ? 1 : 0;
  },
};
