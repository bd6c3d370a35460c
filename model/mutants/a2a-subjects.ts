/**
 * What runs in the A2A world as a mutant: an `a2a` binding mutant flips rules of the binding of
 * whatever era the world speaks (model/bindings/a2a.ts, `A2aRules`), and a server mutant is an
 * A2A policy that loses what it owes, run while the configuration declares the SDK's honest
 * snapshot-then-tap (`a2a-sdk`).
 */
import { a2aRules, type A2aRules } from '../bindings/a2a.js';

export { A2A_BINDING_MUTANTS, type A2aBindingMutant } from './binding-mutants.js';
import type { PolicyName } from '../world/config.js';
import type { Subject } from '../world/property.js';

/** The rules `rules` flips against its era's binding, without the era (the world's decides). */
export function a2aFlipOf(rules: A2aRules): Partial<A2aRules> {
  const base = a2aRules(rules.era);
  const flip: Partial<A2aRules> = {};
  for (const k of Object.keys(rules) as (keyof A2aRules)[])
    if (k !== 'era' && rules[k] !== base[k]) (flip as Record<string, unknown>)[k] = rules[k];
  return flip;
}

/** The subject of an `a2a` binding mutant with rules `rules`. */
export function a2aBindingSubject(rules: A2aRules): Subject {
  return { a2aFlip: a2aFlipOf(rules) };
}

/**
 * The claims that the model's client itself breaks in the A2A world, by `policy/era`: the gaps
 * of the era's text (docs/a2a-counterexamples.md: CE4, a client message's generation on no
 * stream; CE5, a zombie whose snapshot reads as caught up). A mutant is killed only where the
 * model's client proves every claim, so the kill table's A2A probes leave these cells out.
 */
export const A2A_ERA_GAPS: Readonly<Record<string, readonly string[]>> = {
  'a2a-client-message/dev-1.1': ['NoFalseAlarm', 'Delivery'],
  'a2a-zombie/dev-1.1': ['NoSilentPartialResult'],
};

/** `true` when the model's client breaks no claim against `policy` in `era` (no era gap). */
export function a2aCellClean(policy: string, era: string): boolean {
  return A2A_ERA_GAPS[`${policy}/${era}`] === undefined;
}

/** An A2A server mutant: a policy that loses what it owes, declared as the honest `a2a-sdk`. */
export interface A2aServerMutant {
  name: PolicyName;
  description: string;
}

/** The A2A server mutants, one per policy whose fault a claim must catch. */
export const A2A_SERVER_MUTANTS: readonly A2aServerMutant[] = [
  {
    name: 'a2a-seam-loss',
    description:
      'resubscribes as the JS SDK 1.3.0 does with a store that has write latency: the update in the publish-to-persist window is in neither the snapshot nor the live tap',
  },
  {
    name: 'a2a-zombie',
    description:
      'restarts with a persistent store as the JS SDK does: the task is still there, its execution is not; every resubscribe gets a WORKING snapshot, then a clean close',
  },
];
