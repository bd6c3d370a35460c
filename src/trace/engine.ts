/**
 * How the checker runs the client machine. Two engines, one machine:
 *
 * - `xstate`: `initialSnapshot` and `step` from model/run.ts, i.e. xstate's pure `transition()`.
 *   It builds a fresh inert actor for every observation, about 10-35 µs a step: fine for the
 *   properties, far too slow for a trace of ten million lines.
 * - `compiled` (the default): the same machine definition, read once into a table of its
 *   states, transitions, guard implementations and `assign` actions, then walked per
 *   observation in well under a microsecond. The rules are not copied: every guard, target and
 *   action is the machine's own (or the injected mutant's). What is re-implemented is the small
 *   part of xstate's step semantics that a flat machine with guarded transitions and `assign`
 *   actions uses: the first candidate whose guard holds fires, its actions update the context
 *   in order, and the target (or the same state) is next. {@link compileMachine} refuses any
 *   machine outside that subset (nested or final states, entry/exit actions, eventless or
 *   delayed transitions, invocations, wildcard events, guard combinators, built-in actions
 *   other than `assign`), and the checker then falls back to `xstate`. A property in
 *   properties/trace asserts that both engines agree, step by step, for the real machine and
 *   every mutant of the zoo.
 */
import type { AnyStateMachine } from 'xstate';
import { clientMachine, type ClientMachine } from '../../model/client-machine.js';
import type { ClientContext } from '../../model/context.js';
import type { Observation } from '../../model/observations.js';
import { initialSnapshot, step } from '../../model/run.js';

/** What the checker reads of a machine state: the (flat) state name and the context. */
export interface MachineState {
  readonly value: string;
  readonly context: ClientContext;
}

/** Runs one machine. */
export interface Engine {
  /** Which engine this is. */
  readonly name: 'xstate' | 'compiled';
  /** The machine's initial state. */
  initial(): MachineState;
  /** The state after one observation (the same state when the machine ignores it). */
  step(state: MachineState, observation: Observation): MachineState;
}

/** Which engine to use; `compiled` falls back to `xstate` for machines it cannot compile. */
export type EngineName = Engine['name'];

/** The machine through model/run.ts: xstate's own `transition()` for every step. */
export function xstateEngine(machine: ClientMachine = clientMachine): Engine {
  type Snap = ReturnType<typeof initialSnapshot>;
  return {
    name: 'xstate',
    initial: () => initialSnapshot(machine),
    step: (state, observation) => step(state as Snap, observation, machine),
  };
}

type Guard = (args: { context: ClientContext; event: Observation }, params: unknown) => boolean;
type Update = (context: ClientContext, event: Observation) => ClientContext;

interface CompiledTransition {
  guard: Guard | null;
  guardParams: unknown;
  /** The `assign` actions, in order. */
  updates: Update[];
  /** Target state name, or `null` to stay. */
  target: string | null;
}

/** Why a machine cannot be compiled. */
export class NotCompilable extends Error {}

type Impl = Record<string, unknown>;

function paramsOf(def: unknown, where: string): unknown {
  if (typeof def !== 'object' || def === null || !('params' in def)) return undefined;
  const p = (def as { params: unknown }).params;
  if (typeof p === 'function') throw new NotCompilable(`${where}: dynamic params`);
  return p;
}

function compileGuard(guard: unknown, impl: Impl, where: string): [Guard | null, unknown] {
  if (guard === undefined || guard === null) return [null, undefined];
  if (typeof guard === 'function') {
    if ('check' in guard) throw new NotCompilable(`${where}: guard combinator`);
    return [guard as Guard, undefined];
  }
  const name =
    typeof guard === 'string'
      ? guard
      : typeof guard === 'object' && 'type' in guard
        ? String((guard as { type: unknown }).type)
        : null;
  const fn = name === null ? undefined : impl[name];
  if (typeof fn !== 'function' || 'check' in fn) {
    throw new NotCompilable(`${where}: guard ${String(name)} is not a plain function`);
  }
  return [fn as Guard, paramsOf(guard, where)];
}

function noSpawn(): never {
  throw new Error('the compiled engine cannot spawn actors');
}

function compileAction(action: unknown, impl: Impl, where: string): Update | null {
  const fn =
    typeof action === 'function'
      ? action
      : impl[
          typeof action === 'string'
            ? action
            : String((action as { type?: unknown } | null)?.type ?? '')
        ];
  if (typeof fn !== 'function') throw new NotCompilable(`${where}: unknown action`);
  // A plain function is a side effect the pure transition only collects: it cannot change
  // the state, so it is dropped. Built-in actions carry `resolve`; only `assign` is supported.
  if (!('resolve' in fn)) return null;
  const assignment = (fn as { type?: unknown; assignment?: unknown }).assignment;
  if ((fn as { type?: unknown }).type !== 'xstate.assign' || assignment === undefined) {
    throw new NotCompilable(`${where}: built-in action ${String((fn as { type?: unknown }).type)}`);
  }
  const params = paramsOf(action, where);
  const args = (context: ClientContext, event: Observation) => ({
    context,
    event,
    spawn: noSpawn,
    self: undefined,
    system: undefined,
  });
  if (typeof assignment === 'function') {
    return (context, event) =>
      Object.assign({}, context, assignment(args(context, event), params) as object);
  }
  const props = Object.entries(assignment as Record<string, unknown>);
  return (context, event) => {
    const partial: Record<string, unknown> = {};
    const a = args(context, event);
    for (const [key, prop] of props) {
      partial[key] = typeof prop === 'function' ? prop(a, params) : prop;
    }
    return Object.assign({}, context, partial);
  };
}

function emptyList(value: unknown): boolean {
  return value === undefined || (Array.isArray(value) && value.length === 0);
}

/**
 * Reads `machine` into a transition table. Throws {@link NotCompilable} when the machine uses
 * anything beyond flat states, guarded transitions and `assign` actions.
 */
export function compileMachine(machine: AnyStateMachine): Engine {
  const root = machine.root;
  const impl = machine.implementations as { guards: Impl; actions: Impl };
  if (root.transitions.size > 0 || !emptyList(root.always) || root.entry.length || root.exit.length)
    throw new NotCompilable('root: transitions or actions on the root');
  if (typeof machine.config.context === 'function')
    throw new NotCompilable('root: context from a function');
  const table = new Map<string, Map<string, CompiledTransition[]>>();
  for (const [name, node] of Object.entries(root.states)) {
    if (node.type !== 'atomic') throw new NotCompilable(`${name}: ${node.type} state`);
    if (node.entry.length || node.exit.length) throw new NotCompilable(`${name}: entry/exit`);
    if (!emptyList(node.always) || node.after.length || node.invoke.length)
      throw new NotCompilable(`${name}: eventless, delayed or invoked`);
    const byEvent = new Map<string, CompiledTransition[]>();
    for (const [event, defs] of node.transitions) {
      if (event.includes('*')) throw new NotCompilable(`${name}: wildcard event ${event}`);
      byEvent.set(
        event,
        defs.map((def, i) => {
          const where = `${name}.${event}#${i}`;
          const [guard, guardParams] = compileGuard(def.guard, impl.guards, where);
          if (def.target && def.target.length > 1) throw new NotCompilable(`${where}: targets`);
          const target = def.target?.[0] ?? null;
          if (target && target.parent !== root) throw new NotCompilable(`${where}: deep target`);
          const updates = (def.actions as readonly unknown[])
            .map((a) => compileAction(a, impl.actions, where))
            .filter((u): u is Update => u !== null);
          return { guard, guardParams, updates, target: target?.key ?? null };
        }),
      );
    }
    table.set(name, byEvent);
  }
  const start = root.initial?.target?.[0]?.key;
  const context = machine.config.context as ClientContext | undefined;
  if (start === undefined || context === undefined)
    throw new NotCompilable('root: no initial state or context');
  const first: MachineState = { value: start, context };
  return {
    name: 'compiled',
    initial: () => first,
    step(state, event) {
      const candidates = table.get(state.value)?.get(event.type);
      if (candidates === undefined) return state;
      const args = { context: state.context, event };
      for (let i = 0; i < candidates.length; i++) {
        const t = candidates[i]!;
        if (t.guard !== null && !t.guard(args, t.guardParams)) continue;
        const updates = t.updates;
        // A transition that neither moves nor assigns (a keepalive's) leaves the state as it
        // is: no copy, and the checker sees the same context (nothing decided).
        if (updates.length === 0) {
          return t.target === null ? state : { value: t.target, context: state.context };
        }
        let context = state.context;
        for (let u = 0; u < updates.length; u++) context = updates[u]!(context, event);
        return { value: t.target ?? state.value, context };
      }
      return state;
    },
  };
}

/** The engine for `machine`: `compiled` when it compiles (and `name` allows), else `xstate`. */
export function engineFor(
  machine: ClientMachine = clientMachine,
  name: EngineName = 'compiled',
): Engine {
  if (name === 'compiled') {
    try {
      return compileMachine(machine);
    } catch (e) {
      if (!(e instanceof NotCompilable)) throw e;
    }
  }
  return xstateEngine(machine);
}
