/**
 * The two engines of the trace checker (src/trace/engine.ts): which one `engineFor` picks, what
 * `compileMachine` refuses (each refusal with its message, and the fallback to xstate), and the
 * step semantics of the compiled table on small machines built for the purpose: guard order,
 * guard and action params, both forms of `assign`, actions in order, side effects dropped.
 */
import { and, assign, fromPromise, log, not, raise, setup, type AnyStateMachine } from 'xstate';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  clientMachine,
  clientMachineConfig,
  clientSetup,
  type ClientMachine,
} from '../../model/client-machine.js';
import { INITIAL_CONTEXT } from '../../model/context.js';
import type { Observation } from '../../model/observations.js';
import {
  compileMachine,
  engineFor,
  NotCompilable,
  xstateEngine,
  type Engine,
  type MachineState,
} from '../../src/trace/engine.js';

/** The message `compileMachine` refuses `machine` with (it must be a NotCompilable). */
function refusal(machine: AnyStateMachine): string {
  try {
    compileMachine(machine);
  } catch (e) {
    expect(e).toBeInstanceOf(NotCompilable);
    expect(e).toBeInstanceOf(Error);
    return (e as Error).message;
  }
  throw new Error('expected compileMachine to refuse the machine');
}

/** Small machines for the refusal rules: one event, one context field. */
interface Ctx {
  n: number;
}
type Ev = { type: 'A' } | { type: 'B' };
const s = setup({
  types: { context: {} as Ctx, events: {} as Ev },
  guards: {
    yes: () => true,
    both: and(['yes', 'yes']),
    withParams: (_: unknown, p: { k: number }) => p.k > 0,
    // A guard object without a type must not find this one.
    null: () => true,
  },
  actions: {
    inc: assign({ n: ({ context }) => context.n + 1 }),
    set: assign((_, p: { k: number }) => ({ n: p.k })),
    again: raise({ type: 'B' }),
  },
  actors: { job: fromPromise(async () => 1) },
});
const ctx = { n: 0 };

describe('compileMachine refuses what it cannot run, saying why', () => {
  const cases: [string, () => AnyStateMachine, string][] = [
    [
      'a transition on the root',
      () => s.createMachine({ context: ctx, initial: 'a', on: { A: '.a' }, states: { a: {} } }),
      'root: transitions or actions on the root',
    ],
    [
      'an eventless transition on the root',
      () =>
        s.createMachine({
          context: ctx,
          initial: 'a',
          always: { actions: 'inc' },
          states: { a: {} },
        }),
      'root: transitions or actions on the root',
    ],
    [
      'an entry action on the root',
      () => s.createMachine({ context: ctx, initial: 'a', entry: 'inc', states: { a: {} } }),
      'root: transitions or actions on the root',
    ],
    [
      'an exit action on the root',
      () => s.createMachine({ context: ctx, initial: 'a', exit: 'inc', states: { a: {} } }),
      'root: transitions or actions on the root',
    ],
    [
      'a context computed by a function',
      () => s.createMachine({ context: () => ({ n: 0 }), initial: 'a', states: { a: {} } }),
      'root: context from a function',
    ],
    [
      'no context',
      () => setup({}).createMachine({ initial: 'a', states: { a: {} } }),
      'root: no initial state or context',
    ],
    ['no states', () => s.createMachine({ context: ctx }), 'root: no initial state or context'],
    [
      'a nested state',
      () =>
        s.createMachine({
          context: ctx,
          initial: 'a',
          states: { a: { initial: 'x', states: { x: {} } } },
        }),
      'a: compound state',
    ],
    [
      'a parallel state',
      () =>
        s.createMachine({
          context: ctx,
          initial: 'a',
          states: { a: { type: 'parallel', states: { x: {}, y: {} } } },
        }),
      'a: parallel state',
    ],
    [
      'a final state',
      () =>
        s.createMachine({
          context: ctx,
          initial: 'a',
          states: { a: { on: { A: 'done' } }, done: { type: 'final' } },
        }),
      'done: final state',
    ],
    [
      'a history state',
      () =>
        s.createMachine({
          context: ctx,
          initial: 'a',
          states: { a: {}, h: { type: 'history' } },
        }),
      'h: history state',
    ],
    [
      'an entry action',
      () => s.createMachine({ context: ctx, initial: 'a', states: { a: { entry: 'inc' } } }),
      'a: entry/exit',
    ],
    [
      'an exit action',
      () => s.createMachine({ context: ctx, initial: 'a', states: { a: { exit: 'inc' } } }),
      'a: entry/exit',
    ],
    [
      // xstate schedules `after` with entry and exit actions, so that is the first refusal.
      'a delayed transition',
      () =>
        s.createMachine({
          context: ctx,
          initial: 'a',
          states: { a: { after: { 10: 'b' } }, b: {} },
        }),
      'a: entry/exit',
    ],
    [
      'an eventless transition',
      () =>
        s.createMachine({
          context: ctx,
          initial: 'a',
          states: { a: { always: { target: 'b' } }, b: {} },
        }),
      'a: eventless, delayed or invoked',
    ],
    [
      'an invocation',
      () =>
        s.createMachine({ context: ctx, initial: 'a', states: { a: { invoke: { src: 'job' } } } }),
      'a: eventless, delayed or invoked',
    ],
    [
      'a wildcard event',
      () =>
        s.createMachine({
          context: ctx,
          initial: 'a',
          states: { a: { on: { A: 'b' } }, b: { on: { '*': 'a' } } },
        }),
      'b: wildcard event *',
    ],
    [
      'a partial wildcard event',
      () =>
        setup({}).createMachine({
          context: ctx,
          initial: 'a',
          states: { a: { on: { 'x.*': 'a' } } },
        }),
      'a: wildcard event x.*',
    ],
    [
      'an and() guard',
      () =>
        s.createMachine({
          context: ctx,
          initial: 'a',
          states: {
            a: { on: { A: [{ target: 'b' }, { guard: and(['yes']), target: 'b' }] } },
            b: {},
          },
        }),
      'a.A#1: guard combinator',
    ],
    [
      'a not() guard',
      () =>
        s.createMachine({
          context: ctx,
          initial: 'a',
          states: { a: {}, b: { on: { B: { guard: not('yes'), target: 'a' } } } },
        }),
      'b.B#0: guard combinator',
    ],
    [
      'a named guard built with and()',
      () =>
        s.createMachine({
          context: ctx,
          initial: 'a',
          states: { a: { on: { A: { guard: 'both', target: 'b' } } }, b: {} },
        }),
      'a.A#0: guard both is not a plain function',
    ],
    [
      'a guard with no implementation',
      () =>
        s.createMachine({
          context: ctx,
          initial: 'a',
          states: { a: { on: { A: { guard: 'missing' as never } } } },
        }),
      'a.A#0: guard missing is not a plain function',
    ],
    [
      'a guard object without a type',
      () =>
        s.createMachine({
          context: ctx,
          initial: 'a',
          states: { a: { on: { A: { guard: {} as never } } } },
        }),
      'a.A#0: guard null is not a plain function',
    ],
    [
      'a guard that is neither a name, an object nor a function',
      () =>
        s.createMachine({
          context: ctx,
          initial: 'a',
          states: { a: { on: { A: { guard: 5 as never } } } },
        }),
      'a.A#0: guard null is not a plain function',
    ],
    [
      'guard params computed by a function',
      () =>
        s.createMachine({
          context: ctx,
          initial: 'a',
          states: { a: { on: { A: { guard: { type: 'withParams', params: () => ({ k: 1 }) } } } } },
        }),
      'a.A#0: dynamic params',
    ],
    [
      'an inline raise()',
      () =>
        s.createMachine({
          context: ctx,
          initial: 'a',
          states: { a: { on: { A: { actions: ['inc', raise({ type: 'B' })] } } } },
        }),
      'a.A#0: built-in action xstate.raise',
    ],
    [
      'a named raise()',
      () =>
        s.createMachine({
          context: ctx,
          initial: 'a',
          states: { a: { on: { A: { actions: 'again' } } } },
        }),
      'a.A#0: built-in action xstate.raise',
    ],
    [
      'a log()',
      () =>
        s.createMachine({
          context: ctx,
          initial: 'a',
          states: { a: { on: { A: { actions: log('x') } } } },
        }),
      'a.A#0: built-in action xstate.log',
    ],
    [
      'an action with no implementation',
      () =>
        s.createMachine({
          context: ctx,
          initial: 'a',
          states: { a: { on: { B: { actions: 'missing' as never } } } },
        }),
      'a.B#0: unknown action',
    ],
    [
      'an action object without a type',
      () =>
        s.createMachine({
          context: ctx,
          initial: 'a',
          states: { a: { on: { A: { actions: {} as never } } } },
        }),
      'a.A#0: unknown action',
    ],
    [
      'a null action',
      () =>
        s.createMachine({
          context: ctx,
          initial: 'a',
          states: { a: { on: { A: { actions: [null] as never } } } },
        }),
      'a.A#0: unknown action',
    ],
    [
      'an assign() without an assignment',
      () =>
        s.createMachine({
          context: ctx,
          initial: 'a',
          states: { a: { on: { A: { actions: assign(undefined as never) } } } },
        }),
      'a.A#0: built-in action xstate.assign',
    ],
    [
      'action params computed by a function',
      () =>
        s.createMachine({
          context: ctx,
          initial: 'a',
          states: { a: { on: { A: { actions: { type: 'set', params: () => ({ k: 1 }) } } } } },
        }),
      'a.A#0: dynamic params',
    ],
    [
      'two targets',
      () =>
        s.createMachine({
          context: ctx,
          initial: 'a',
          states: { a: { on: { A: { target: ['b', 'c'] } } }, b: {}, c: {} },
        }),
      'a.A#0: targets',
    ],
    [
      'a target that is not a top-level state',
      () =>
        s.createMachine({
          id: 'm',
          context: ctx,
          initial: 'a',
          states: { a: { on: { A: { target: '#m' } } } },
        }),
      'a.A#0: deep target',
    ],
  ];

  for (const [what, build, message] of cases) {
    it(`${what}: ${message}`, () => {
      expect(refusal(build())).toBe(message);
    });
  }

  it('an empty always list is no eventless transition', () => {
    const m = s.createMachine({
      context: ctx,
      initial: 'a',
      always: [],
      states: { a: { always: [], on: { A: 'b' } }, b: {} },
    });
    const engine = compileMachine(m);
    expect(engine.step(engine.initial(), { type: 'A' } as unknown as Observation)).toEqual({
      value: 'b',
      context: ctx,
    });
  });

  it('a null guard is no guard', () => {
    const m = s.createMachine({
      context: ctx,
      initial: 'a',
      states: { a: { on: { A: { guard: null as never, target: 'b' } } }, b: {} },
    });
    const engine = compileMachine(m);
    expect(engine.step(engine.initial(), { type: 'A' } as unknown as Observation)).toEqual({
      value: 'b',
      context: ctx,
    });
  });

  it('NotCompilable is an Error', () => {
    const e = new NotCompilable('why');
    expect(e).toBeInstanceOf(Error);
    expect(e.message).toBe('why');
  });
});

/** A client machine the compiler refuses: an entry action on its first state. */
const refusedClient = clientSetup.createMachine({
  ...clientMachineConfig,
  states: {
    ...clientMachineConfig.states,
    connecting: { ...clientMachineConfig.states.connecting, entry: 'open' },
  },
} as typeof clientMachineConfig) as unknown as ClientMachine;

const open200: Observation = { type: 'OPEN', status: 200, epoch: 'e1' };

describe('engineFor picks the engine', () => {
  it('compiled by default, for the client machine', () => {
    expect(engineFor().name).toBe('compiled');
    expect(engineFor(clientMachine).name).toBe('compiled');
    expect(engineFor(clientMachine, 'compiled').name).toBe('compiled');
  });

  it('xstate when asked, even for a machine that compiles', () => {
    expect(engineFor(clientMachine, 'xstate').name).toBe('xstate');
    expect(engineFor(undefined, 'xstate').name).toBe('xstate');
  });

  it('xstate when the machine does not compile', () => {
    expect(refusal(refusedClient)).toBe('connecting: entry/exit');
    const engine = engineFor(refusedClient);
    expect(engine.name).toBe('xstate');
    expect(engineFor(refusedClient, 'compiled').name).toBe('xstate');
    expect(engineFor(refusedClient, 'xstate').name).toBe('xstate');
    // And it runs that machine, not the default one.
    const first = engine.initial();
    expect(first.value).toBe('connecting');
    expect(engine.step(first, open200).value).toBe('streaming');
  });

  it('passes on any other error of the compiler', () => {
    const notAMachine = {} as ClientMachine;
    expect(() => engineFor(notAMachine)).toThrow(TypeError);
    expect(() => engineFor(notAMachine, 'compiled')).toThrow(TypeError);
    expect(engineFor(notAMachine, 'xstate').name).toBe('xstate');
  });
});

describe('the engines on the client machine', () => {
  const plain = (m: MachineState) => ({ value: m.value, context: m.context });

  it('xstateEngine runs the client machine by default', () => {
    const engine = xstateEngine();
    expect(engine.name).toBe('xstate');
    expect(plain(engine.initial())).toEqual({ value: 'connecting', context: INITIAL_CONTEXT });
    expect(plain(engine.step(engine.initial(), open200))).toEqual({
      value: 'streaming',
      context: { ...INITIAL_CONTEXT, epoch: 'e1' },
    });
  });

  it('compileMachine reads the client machine', () => {
    const engine = compileMachine(clientMachine);
    expect(engine.name).toBe('compiled');
    expect(plain(engine.initial())).toEqual({ value: 'connecting', context: INITIAL_CONTEXT });
    const open = engine.step(engine.initial(), open200);
    expect(plain(open)).toEqual({
      value: 'streaming',
      context: { ...INITIAL_CONTEXT, epoch: 'e1' },
    });
    const ev1 = engine.step(open, { type: 'EVENT', id: 1, stream: 's' });
    expect(plain(ev1)).toEqual({
      value: 'streaming',
      context: { ...INITIAL_CONTEXT, epoch: 'e1', cursor: 1, stream: 's' },
    });
    // An observation the state has no transition for leaves the very same state.
    expect(engine.step(ev1, { type: 'RESPONSE', status: 200 })).toBe(ev1);
    // So does one whose only transition's guard does not hold (a non-200 open while connecting).
    const start = engine.initial();
    expect(engine.step(start, { type: 'OPEN', status: 500 })).toBe(start);
  });

  it('both engines of the refused machine and the real one agree on a session', () => {
    const session: Observation[] = [
      open200,
      { type: 'EVENT', id: 1 },
      { type: 'EVENT', id: 2 },
      { type: 'DISCONNECT' },
      { type: 'RECONNECT', cursor: 2 },
      { type: 'RESPONSE', status: 200, floor: 3 },
      { type: 'EVENT', id: 3 },
    ];
    const run = (engine: Engine) => {
      let st = engine.initial();
      const values = [st.value];
      for (const o of session) values.push((st = engine.step(st, o)).value);
      return { values, context: st.context };
    };
    const compiled = run(compileMachine(clientMachine));
    expect(compiled.values).toEqual([
      'connecting',
      'streaming',
      'streaming',
      'streaming',
      'closed',
      'reconnecting',
      'delayed',
      'resumed',
    ]);
    expect(compiled.context).toMatchObject({ cursor: 3, floor: 3, outcome: 'resumed' });
    expect(run(xstateEngine(clientMachine))).toEqual(compiled);
    expect(run(engineFor(refusedClient))).toEqual(compiled);
  });
});

/** A machine for the compiled step semantics, run against xstate. */
interface Counter {
  n: number;
  log: string;
  mark: string;
}
type CounterEvent = { type: 'ADD'; by: number } | { type: 'GO' } | { type: 'RESET' };
let effects = 0;
const counter = setup({
  types: { context: {} as Counter, events: {} as CounterEvent },
  guards: {
    atLeast: ({ context }, p: { min: number }) => context.n >= p.min,
    oddBy: ({ event }) => event.type === 'ADD' && event.by % 2 === 1,
  },
  actions: {
    add: assign(({ context, event }, p: { times: number }) => ({
      n: context.n + (event.type === 'ADD' ? event.by : 0) * p.times,
    })),
    note: assign({ log: ({ context }) => `${context.log}${context.n};`, mark: 'noted' }),
    put: assign({ n: (_, p: { value: number }) => p.value }),
    effect: () => {
      effects += 1;
    },
  },
}).createMachine({
  context: { n: 0, log: '', mark: '' },
  initial: 'low',
  states: {
    low: {
      on: {
        ADD: [
          {
            guard: { type: 'atLeast', params: { min: 10 } },
            target: 'high',
            actions: [{ type: 'add', params: { times: 2 } }, 'note'],
          },
          { guard: ({ event }) => event.by === 0, target: 'zero' },
          { actions: [{ type: 'add', params: { times: 1 } }, 'effect'] },
        ],
        GO: { target: 'high', actions: { type: 'put', params: { value: 7 } } },
      },
    },
    high: {
      on: {
        ADD: { guard: 'oddBy', actions: ['note', { type: 'add', params: { times: 1 } }] },
        RESET: { target: 'low', actions: assign({ n: 0, mark: 'reset' }) },
      },
    },
    zero: {},
  },
});

describe('the compiled step semantics', () => {
  // Compiled in a hook, not while the suite is collected: a mutant that breaks compilation
  // must fail these tests, not the file's collection (which Stryker would count as survived).
  let compiled: Engine;
  beforeEach(() => {
    compiled = compileMachine(counter);
  });
  const viaXstate = xstateEngine(counter as unknown as ClientMachine);
  const step = (engine: Engine, state: MachineState, e: CounterEvent) =>
    engine.step(state, e as unknown as Observation);
  const plain = (m: MachineState) => ({ value: m.value, context: m.context as unknown });

  it('starts in the initial state with the configured context', () => {
    expect(compiled.name).toBe('compiled');
    expect(plain(compiled.initial())).toEqual({
      value: 'low',
      context: { n: 0, log: '', mark: '' },
    });
  });

  it('takes the first candidate whose guard holds, with params, actions in order', () => {
    const script: [CounterEvent, string, Counter][] = [
      [{ type: 'ADD', by: 4 }, 'low', { n: 4, log: '', mark: '' }],
      [{ type: 'ADD', by: 6 }, 'low', { n: 10, log: '', mark: '' }],
      // n >= 10: the guarded candidate fires, `add` x2 runs before `note` reads n.
      [{ type: 'ADD', by: 0 }, 'high', { n: 10, log: '10;', mark: 'noted' }],
      [{ type: 'ADD', by: 3 }, 'high', { n: 13, log: '10;10;', mark: 'noted' }],
      [{ type: 'RESET' }, 'low', { n: 0, log: '10;10;', mark: 'reset' }],
      [{ type: 'GO' }, 'high', { n: 7, log: '10;10;', mark: 'reset' }],
      [{ type: 'RESET' }, 'low', { n: 0, log: '10;10;', mark: 'reset' }],
      [{ type: 'ADD', by: 0 }, 'zero', { n: 0, log: '10;10;', mark: 'reset' }],
    ];
    let a = compiled.initial();
    let b = viaXstate.initial();
    for (const [e, value, context] of script) {
      a = step(compiled, a, e);
      b = step(viaXstate, b, e);
      expect(plain(a)).toEqual({ value, context });
      expect(plain(b)).toEqual({ value, context });
    }
  });

  it('leaves the state unchanged when no guard holds or nothing handles the event', () => {
    const high = step(compiled, compiled.initial(), { type: 'GO' });
    expect(step(compiled, high, { type: 'ADD', by: 2 })).toBe(high);
    expect(step(compiled, high, { type: 'GO' })).toBe(high);
    const zero = step(compiled, compiled.initial(), { type: 'ADD', by: 0 });
    expect(step(compiled, zero, { type: 'RESET' })).toBe(zero);
    const nowhere: MachineState = { value: 'nowhere', context: compiled.initial().context };
    expect(step(compiled, nowhere, { type: 'GO' })).toBe(nowhere);
  });

  it('does not change the context it was given', () => {
    const first = compiled.initial();
    const next = step(compiled, first, { type: 'ADD', by: 5 });
    expect(next.context).not.toBe(first.context);
    expect(first.context).toEqual({ n: 0, log: '', mark: '' });
    expect(compiled.initial().context).toEqual({ n: 0, log: '', mark: '' });
  });

  it('drops plain-function side effects without running them', () => {
    const before = effects;
    const next = step(compiled, compiled.initial(), { type: 'ADD', by: 1 });
    expect(plain(next)).toEqual({ value: 'low', context: { n: 1, log: '', mark: '' } });
    expect(effects).toBe(before);
  });

  it('cannot spawn actors from an assign', () => {
    const spawner = setup({
      types: { context: {} as Ctx, events: {} as Ev },
      actors: { job: fromPromise(async () => 1) },
    }).createMachine({
      context: ctx,
      initial: 'a',
      states: {
        a: {
          on: {
            A: {
              actions: assign(({ spawn }) => {
                spawn('job');
                return { n: 1 };
              }),
            },
          },
        },
      },
    });
    const engine = compileMachine(spawner);
    expect(() => engine.step(engine.initial(), { type: 'A' } as unknown as Observation)).toThrow(
      new Error('the compiled engine cannot spawn actors'),
    );
  });
});
