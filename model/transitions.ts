/**
 * The machine's transitions, listed from the machine definition itself. The path-coverage test
 * and the diagram generator both read this list, so a transition added to the machine without
 * a path that takes it fails the suite, and shows up in docs/model.md.
 */
import type { AnyStateMachine } from 'xstate';
import type { ClientMachine, DecideParams } from './client-machine.js';
import type { Observation } from './observations.js';
import type { ClientSnapshot } from './run.js';

/** One transition of the machine: a state, an event type, and the position among candidates. */
export interface TransitionInfo {
  /** Stable id: `state.EVENT#index`. */
  id: string;
  source: string;
  event: string;
  /** Index among the candidates for this event in this state (guard order). */
  index: number;
  /** Guard name, when guarded. */
  guard: string | null;
  /** Target state, or `null` for a transition that stays (targetless). */
  target: string | null;
  /** The outcome and rule this transition decides, when it decides one. */
  decides: DecideParams | null;
}

function decision(actions: readonly unknown[]): DecideParams | null {
  for (const a of actions) {
    if (a && typeof a === 'object' && (a as { type?: unknown }).type === 'decide') {
      return (a as { params: DecideParams }).params;
    }
  }
  return null;
}

function guardName(guard: unknown): string | null {
  if (guard === undefined || guard === null) return null;
  if (typeof guard === 'string') return guard;
  if (typeof guard === 'object' && 'type' in guard)
    return String((guard as { type: unknown }).type);
  return 'inline';
}

/** Every state name of the machine, in definition order. */
export function listStates(machine: AnyStateMachine): string[] {
  return Object.keys(machine.root.states);
}

/** Every transition of the machine, in definition order. */
export function listTransitions(machine: AnyStateMachine): TransitionInfo[] {
  const out: TransitionInfo[] = [];
  for (const [name, node] of Object.entries(machine.root.states)) {
    for (const [event, defs] of node.transitions) {
      defs.forEach((def, index) => {
        const target = def.target?.[0]?.key ?? null;
        out.push({
          id: `${name}.${event}#${index}`,
          source: name,
          event,
          index,
          guard: guardName(def.guard),
          target,
          decides: decision(def.actions as readonly unknown[]),
        });
      });
    }
  }
  return out;
}

/** The id of the transition that `observation` takes from `snapshot`, or `null` if none. */
export function firedTransition(
  machine: ClientMachine,
  snapshot: ClientSnapshot,
  observation: Observation,
): string | null {
  const defs = machine.getTransitionData(snapshot, observation);
  const def = defs[0];
  if (!def) return null;
  const candidates = def.source.transitions.get(def.eventType) ?? [];
  const index = candidates.indexOf(def);
  return `${def.source.key}.${def.eventType}#${index}`;
}
