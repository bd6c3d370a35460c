/**
 * A verification named by plain data (scope, policy, client), and the search it stands for.
 * The names cross to worker threads, which cannot receive the subject's functions: each
 * worker rebuilds the same search from them.
 */
import { CLAIMS } from '../../model/claims/index.js';
import { CLIENT_MUTANTS } from '../../model/mutants/client-mutants.js';
import { scopeConfigs, scopeNamed } from '../../model/verify/scope.js';
import type { PolicyName } from '../../model/world/config.js';
import type { Subject } from '../../model/world/property.js';
import type { PartitionSpec } from './partition.js';

/** The clients `--client` accepts: the model's, and each client mutant of the zoo. */
export const CLIENT_NAMES: readonly string[] = ['model', ...CLIENT_MUTANTS.map((m) => m.name)];

/** What runs as client `name` (`model`: the model's client). */
export function clientSubject(name: string): Subject {
  if (name === 'model') return {};
  const m = CLIENT_MUTANTS.find((x) => x.name === name);
  if (!m) throw new Error(`no client ${name}`);
  return m.subject;
}

/** One verification by name. */
export interface VerifyRef {
  scope: string;
  policy: PolicyName;
  client: string;
}

/** The search `ref` names: every claim, the scope's configurations of the policy. */
export function verifySpec(ref: VerifyRef): PartitionSpec {
  const scope = scopeNamed(ref.scope);
  if (!scope) throw new Error(`no scope ${ref.scope}`);
  return {
    configs: scopeConfigs(scope, ref.policy),
    subject: clientSubject(ref.client),
    claims: CLAIMS,
    bounds: scope.bounds,
  };
}
