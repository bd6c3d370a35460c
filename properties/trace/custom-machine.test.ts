/**
 * The checker with a machine other than the built-in one (`CheckOptions.machine`, issue 19 item
 * 18). The option takes any machine over the same observations and context, so the checker's
 * bookkeeping must hold for machines that do what the client machine never does: decide twice
 * in one window, decide outside any window, change the reason without an outcome or clear it,
 * handle the settling PROOF_TIMEOUT outside a pending state, or break on a stream's first event.
 * Each test runs both engines and asserts what the checker keeps.
 */
import { describe, expect, test } from 'vitest';
import {
  clientMachineConfig,
  clientSetup,
  type ClientMachine,
  type DecideParams,
} from '../../model/client-machine.js';
import { checkTrace, type CheckReport } from '../../src/trace/index.js';

const S = clientMachineConfig.states;
const decide = (outcome: DecideParams['outcome'], code: DecideParams['code']) =>
  ({ type: 'decide', params: { outcome, code } }) as const;

/** The client machine with some states replaced or added. */
function machineWith(states: Record<string, unknown>): ClientMachine {
  return clientSetup.createMachine({
    ...clientMachineConfig,
    states: { ...S, ...states },
  } as unknown as typeof clientMachineConfig) as unknown as ClientMachine;
}

const L = (o: Record<string, unknown>) => JSON.stringify(o);
const open = L({ type: 'open', status: 200 });
const ev = (id: number) => L({ type: 'event', id });
const data = L({ type: 'event', data: 'x' });
const rc = (cursor: number) => L({ type: 'reconnect', cursor });
const ok200 = L({ type: 'response', status: 200 });
const disconnect = L({ type: 'disconnect' });
const keepalive = L({ type: 'keepalive' });
const said = (outcome: string) => L({ type: 'decision', outcome });

/** Checks `lines` with `machine` on both engines; they must agree. */
async function check(lines: string[], machine: ClientMachine): Promise<CheckReport> {
  const compiled = await checkTrace(lines, { machine, engine: 'compiled' });
  expect(await checkTrace(lines, { machine, engine: 'xstate' })).toEqual(compiled);
  return compiled;
}

const judged = (r: CheckReport) => r.reconnects.map((x) => [x.expected, x.code, x.decidedAt]);

describe('the checker with a machine of the caller (CheckOptions.machine)', () => {
  test('a machine that decides twice in a window: the first decisive outcome is the one judged', async () => {
    // Any answer loses the session, and a later event in sessionLost "resumes" it.
    const twice = machineWith({
      reconnecting: {
        on: {
          RESPONSE: { target: 'sessionLost', actions: decide('session-lost', 'session-gone') },
        },
      },
      sessionLost: {
        on: {
          ...S.sessionLost.on,
          EVENT: { target: 'resumed', actions: [decide('resumed', 'successor'), 'acceptEvent'] },
        },
      },
    });
    const r = await check([open, ev(1), disconnect, rc(1), ok200, ev(2), said('resumed')], twice);
    expect(judged(r)).toEqual([['session-lost', 'session-gone', 5]]);
    expect(r.reconnects[0]!.verdict).toBe('unsafe-accept');
  });

  test('a decisive outcome after a delay replaces it; a later one does not', async () => {
    const delayThenTwo = machineWith({
      reconnecting: {
        on: { RESPONSE: { target: 'delayed', actions: decide('delayed', 'floor-covers') } },
      },
      delayed: {
        on: {
          KEEPALIVE: { target: 'sessionLost', actions: decide('session-lost', 'session-gone') },
        },
      },
      sessionLost: {
        on: {
          ...S.sessionLost.on,
          EVENT: { target: 'resumed', actions: [decide('resumed', 'successor'), 'acceptEvent'] },
        },
      },
    });
    const r = await check([open, ev(1), disconnect, rc(1), ok200, keepalive, ev(2)], delayThenTwo);
    expect(judged(r)).toEqual([['session-lost', 'session-gone', 6]]);
  });

  test('a decision outside any window (not a break) is not a reconnect’s', async () => {
    const failsOnData = machineWith({
      streaming: {
        on: { ...S.streaming.on, DATA: { actions: decide('resumption-failed', 'unproven-data') } },
      },
    });
    const r = await check([open, ev(1), data, disconnect, rc(1), ok200, ev(2)], failsOnData);
    expect(judged(r)).toEqual([['resumed', 'successor', 7]]);
    expect(r.breaks).toEqual([]);
  });

  test('a reason without an outcome decides nothing: the window settles as unproven', async () => {
    const noteOnly = machineWith({
      awaitingProof: {
        on: {
          ...S.awaitingProof.on,
          KEEPALIVE: {
            actions: {
              type: 'setReason',
            },
          },
        },
      },
    });
    const machine = noteOnly.provide({
      actions: {
        setReason: clientSetup.assign({ reason: { code: 'unproven', text: 'a note' } }),
      } as never,
    });
    const r = await check([open, ev(1), disconnect, rc(1), ok200, keepalive], machine);
    expect(judged(r)).toEqual([['resumption-failed', 'unproven', 6]]);
    expect(r.reconnects[0]!.reason).toMatch(/still unproven when the judgement window closed/);
  });

  test('a reason cleared with an outcome set decides nothing', async () => {
    const clears = machineWith({
      delayed: {
        on: { ...S.delayed.on, KEEPALIVE: { actions: 'clearReason' } },
      },
    }).provide({
      actions: {
        clearReason: clientSetup.assign({ reason: null, outcome: 'resumed' }),
      } as never,
    });
    const lines = [open, ev(1), disconnect, rc(1), L({ type: 'response', status: 200, floor: 2 })];
    const r = await check([...lines, keepalive], clears);
    expect(judged(r)).toEqual([['delayed', 'floor-covers', 5]]);
  });

  test('the settling PROOF_TIMEOUT goes only to a pending machine', async () => {
    // A closed stream that the proof timer would kill: the checker must not send it one.
    const killedByTimer = machineWith({
      closed: { on: { ...S.closed.on, PROOF_TIMEOUT: 'dead' } },
      dead: { on: {} },
    });
    const r = await check(
      [open, ev(1), disconnect, rc(1), ok200, ev(2), disconnect, rc(2), ok200, ev(3)],
      killedByTimer,
    );
    expect(judged(r)).toEqual([
      ['resumed', 'successor', 6],
      ['resumed', 'successor', 10],
    ]);
  });

  test('a break on a stream’s first event, before any cursor, expects id 0', async () => {
    const firstBreaks = machineWith({
      streaming: {
        on: {
          ...S.streaming.on,
          EVENT: { target: 'resumptionFailed', actions: decide('resumption-failed', 'break') },
        },
      },
    });
    const r = await check([open, ev(5)], firstBreaks);
    expect(r.breaks).toEqual([expect.objectContaining({ line: 2, expected: 0, got: 5 })]);
  });
});
