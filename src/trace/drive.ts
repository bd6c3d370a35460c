/**
 * Driving the client machine in the checker's hot loop. `step()` in model/run.ts calls xstate's
 * pure `transition()`, which builds a fresh inert actor (and actor system) for every
 * observation: about 10-35 µs a step, which would cap the checker near 20,000 lines/s. The
 * stepper here calls the same machine's own `transition` with one inert actor scope made
 * once, the way `transition()` builds it, so the machine and its transition function are
 * unchanged and a step costs about 1-3 µs. The machine has no actions with side effects (only
 * `assign`, which xstate applies inside `transition`), so nothing is lost by not collecting
 * them. properties/trace asserts that it agrees with `step()` on generated observations.
 */
import { createActor, type AnyActorScope } from 'xstate';
import type { ClientMachine } from '../../model/client-machine.js';
import type { Observation } from '../../model/observations.js';
import type { ClientSnapshot } from '../../model/run.js';

/** One step of the machine: the same result as `step()` from model/run.ts. */
export type Stepper = (snapshot: ClientSnapshot, observation: Observation) => ClientSnapshot;

/** A stepper for `machine` that reuses one inert actor scope. */
export function machineStepper(machine: ClientMachine): Stepper {
  const self = createActor(machine);
  const noop = () => {};
  const scope: AnyActorScope = {
    self,
    id: '',
    sessionId: '',
    logger: noop,
    defer: noop,
    emit: noop,
    system: self.system,
    stopChild: noop,
    actionExecutor: noop,
  };
  return (snapshot, observation) => machine.transition(snapshot, observation, scope);
}
