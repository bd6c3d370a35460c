/**
 * One stream's client machine, as the guards run it: the machine's state, stepped by the
 * engine (the compiled machine of src/trace/engine.ts), with a fast path for the common event,
 * the cursor's successor on a stream already accepted. (A machine the engine cannot compile
 * runs through xstate at every step, without the fast path.)
 *
 * The machine stays the authority. The fast path is taken only after the machine itself took
 * the same step: an event `c+1` stepped from `(S, C)` that left the state `S` and changed
 * nothing in the context but the cursor (`c` to `c+1`) is a pure cursor step. The next event
 * `c+2` of the same stream is then stepped by moving the cursor only, without asking the
 * machine again; the state is built from the cached step when something reads it (lazily), and
 * any other observation goes through the engine. This holds because the machine reads the
 * cursor only as `id === cursor + 1` (`firstIdIsSuccessor`, `idRewinds` in model/guards.ts):
 * its decision on a successor does not depend on the cursor's value. The property
 * properties/runtime/machine-track.test.ts holds the fast path to the engine, step by step.
 */
import { BUDGETED_STATES, type ClientStateName } from '../../model/client-machine.js';
import type { ClientContext } from '../../model/context.js';
import type { EventObservation, Observation } from '../../model/observations.js';
import type { Engine, MachineState } from '../trace/engine.js';

/** The pure cursor step the machine last took: the state and context it leaves the same. */
interface CursorStep {
  value: string;
  context: ClientContext;
  /** The stream the event named (`undefined`: none); only an event naming the same one follows. */
  stream: string | undefined;
}

/** `true` when stepping `event` took `before` to `after` by moving the cursor by one only. */
export function isPureCursorStep(
  before: MachineState,
  after: MachineState,
  event: EventObservation,
): boolean {
  if (after.value !== before.value) return false;
  if (BUDGETED_STATES.includes(after.value as ClientStateName)) return false;
  const a = before.context;
  const b = after.context;
  return (
    a.cursor === event.id - 1 &&
    b.cursor === event.id &&
    a.stream === b.stream &&
    a.epoch === b.epoch &&
    a.idless === b.idless &&
    a.floor === b.floor &&
    a.outcome === b.outcome &&
    a.reason === b.reason
  );
}

/** One stream's machine: see the module comment. */
export class MachineTrack {
  private state: MachineState;
  private fast: CursorStep | null = null;
  /** The cursor the fast path has reached (valid while `fast` is set). */
  private fastCursor = 0;
  /** `state` is behind `fastCursor`: build it before it is read. */
  private lagging = false;
  private readonly compiled: boolean;

  constructor(private readonly engine: Engine) {
    this.state = engine.initial();
    this.compiled = engine.name === 'compiled';
  }

  /** The machine's state now. */
  get snapshot(): MachineState {
    if (this.lagging) {
      const f = this.fast!;
      this.state = { value: f.value, context: { ...f.context, cursor: this.fastCursor } };
      this.lagging = false;
    }
    return this.state;
  }

  /** Sets the state (an executor's own step): the fast path starts again from the engine. */
  set snapshot(state: MachineState) {
    this.state = state;
    this.lagging = false;
    this.fast = null;
  }

  /**
   * Takes the event `id` (of `stream`) by the fast path when the machine's last step was the
   * same pure cursor step and `id` is the cursor's successor: `true` when taken (the machine
   * accepted it and stays where it is), `false` when it must go through {@link step}.
   */
  successor(id: number, stream: string | undefined): boolean {
    const f = this.fast;
    if (f === null || id !== this.fastCursor + 1) return false;
    if (!this.sameStream(stream, f.stream)) return false;
    this.fastCursor = id;
    this.lagging = true;
    return true;
  }

  /** Whether an event naming `stream` follows the cached step's, which named `stepped`. */
  protected sameStream(stream: string | undefined, stepped: string | undefined): boolean {
    return stream === stepped;
  }

  /** Steps one observation through the engine; returns the new state. */
  step(o: Observation): MachineState {
    const before = this.snapshot;
    const after = this.engine.step(before, o);
    this.state = after;
    this.fast = null;
    // (Only the compiled engine's states are plain data the fast path can build; an xstate
    // snapshot is stepped by xstate alone.)
    if (o.type === 'EVENT' && this.compiled && isPureCursorStep(before, after, o)) {
      this.fast = { value: after.value, context: after.context, stream: o.stream };
      this.fastCursor = o.id;
    }
    return after;
  }
}
