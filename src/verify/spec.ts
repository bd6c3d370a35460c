/**
 * A verification named by plain data (scope, policy, client), and the search it stands for.
 * The names cross to worker threads, which cannot receive the subject's functions: each
 * worker rebuilds the same search from them.
 */
import { CLAIMS } from '../../model/claims/index.js';
import { BINDING_MUTANTS } from '../../model/mutants/binding-mutants.js';
import { A2A_BINDING_MUTANTS, a2aBindingSubject } from '../../model/mutants/a2a-subjects.js';
import { CLIENT_MUTANTS } from '../../model/mutants/client-mutants.js';
import { scopeConfigs, scopeNamed } from '../../model/verify/scope.js';
import type { A2aEra, PolicyName } from '../../model/world/config.js';
import type { Subject } from '../../model/world/property.js';
import type { PartitionSpec } from './partition.js';

/** The clients `--client` accepts: the model's, and each client mutant of the zoo. */
export const CLIENT_NAMES: readonly string[] = ['model', ...CLIENT_MUTANTS.map((m) => m.name)];

/**
 * The client mutants of the SSE zoo that can go wrong in the task-stream world, and so must be
 * killed there. The others cannot: `ignores-floor` (an `events_gone` answer ends the call, so a
 * client that ignores its floor still never gets an event and fails at the budget),
 * `drops-cursor` and `delayed-forever` (no task answer declares a floor that covers the cursor:
 * the binding never reaches `delayed`), `accepts-no-cursor` (the binding never sends a
 * reconnect without a cursor before events were delivered: a call again is a resume from seq 0),
 * `head-ahead-caught-up` (no task answer states a head: SEP-2694 has no caught-up marker).
 */
export const TASK_CLIENT_MUTANTS: readonly string[] = [
  'trusts-any-200',
  'off-by-one-floor',
  'unproven-forever',
  'idle-on-app-thread',
  'fails-empty-poll',
  // A task-stream call left pending after a failure waits as long as an SSE one.
  'waits-for-request-timeout',
];

/** The clients of the task-stream world: the model's, each binding mutant, the client mutants that apply. */
export const TASK_CLIENT_NAMES: readonly string[] = [
  'model',
  ...BINDING_MUTANTS.map((m) => m.name),
  ...TASK_CLIENT_MUTANTS,
];

/**
 * The client mutants of the SSE zoo that the A2A world's small scope kills, and so must kill
 * (properties/verify/a2a-world.test.ts finds each killed where the model's client proves every
 * claim). The others survive the small scope: `drops-cursor` and `accepts-no-cursor` (the A2A
 * client's cursor is its own: the wire of 1.0 and dev-1.1 has none to drop, and 1986's always
 * carries it), `delayed-forever` (no answer declares a floor below the cursor's successor without
 * a head: a dev-1.1 snapshot at the cursor is caught up, a 1986 one states nothing),
 * `head-ahead-caught-up` (a snapshot above the cursor is a floor above its successor as well),
 * and `ignores-floor`, which `explore --binding a2a`'s kill table kills in longer worlds than the
 * scope's (NoUnprovenAcceptance).
 */
export const A2A_CLIENT_MUTANTS: readonly string[] = [
  'trusts-any-200',
  'off-by-one-floor',
  'unproven-forever',
  'idle-on-app-thread',
  'fails-empty-poll',
  'waits-for-request-timeout',
];

/** The clients of the A2A world: the model's, each `a2a` binding mutant, the client mutants that apply. */
export const A2A_CLIENT_NAMES: readonly string[] = [
  'model',
  ...A2A_BINDING_MUTANTS.map((m) => m.name),
  ...A2A_CLIENT_MUTANTS,
];

/** The clients of a binding's world, by the binding's name. */
export function clientNamesOf(binding: string): readonly string[] {
  return binding === 'mcp-tasks'
    ? TASK_CLIENT_NAMES
    : binding === 'a2a'
      ? A2A_CLIENT_NAMES
      : CLIENT_NAMES;
}

/** What runs as client `name` (`model`: the model's client; a binding mutant's name: its binding). */
export function clientSubject(name: string): Subject {
  if (name === 'model') return {};
  const m = CLIENT_MUTANTS.find((x) => x.name === name);
  if (m) return m.subject;
  const b = BINDING_MUTANTS.find((x) => x.name === name);
  if (b) return b.subject;
  const a = A2A_BINDING_MUTANTS.find((x) => x.name === name);
  if (!a) throw new Error(`no client ${name}`);
  return a2aBindingSubject(a.rules);
}

/** One verification by name. */
export interface VerifyRef {
  scope: string;
  policy: PolicyName;
  client: string;
  /** In the A2A world: only the configurations of this era. */
  era?: A2aEra;
}

/** The search `ref` names: every claim, the scope's configurations of the policy. */
export function verifySpec(ref: VerifyRef): PartitionSpec {
  const scope = scopeNamed(ref.scope);
  if (!scope) throw new Error(`no scope ${ref.scope}`);
  return {
    configs: scopeConfigs(scope, ref.policy, ref.era),
    subject: clientSubject(ref.client),
    claims: CLAIMS,
    bounds: scope.bounds,
  };
}
