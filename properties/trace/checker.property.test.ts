/**
 * Properties of the trace checker over traces generated from a grammar of observations:
 * it never throws, every reconnect gets exactly one expected outcome, the classification
 * agrees with running the machine directly (model/run.ts `step`/`settle`), and the compiled
 * engine agrees with xstate step by step. Each property ships with a mutant it kills.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clientMachine, type ClientMachine } from '../../model/client-machine.js';
import { MACHINE_MUTANTS } from '../../model/mutants/machine-mutants.js';
import type { Observation } from '../../model/observations.js';
import { isAccepting, OUTCOMES, type Outcome } from '../../model/outcomes.js';
import { initialSnapshot, settle, step, type ClientSnapshot } from '../../model/run.js';
import {
  checkTrace,
  compileMachine,
  verdictOf,
  xstateEngine,
  type CheckReport,
} from '../../src/trace/index.js';
import { announceSeed } from '../support/seed.js';
import { anyTrace, oneSessionTrace, params } from './grammar.js';
import { neverTimesOut } from './helpers.js';

announceSeed('properties/trace/checker.property.test.ts');

/** What the machine says about each reconnect, computed directly and without streaming. */
interface Direct {
  line: number;
  expected: Outcome;
  actual?: Outcome;
  ahead: boolean;
}

/**
 * The observation a line is, for the direct run (lines of `oneSessionTrace` only). Written apart
 * from `observationOf` in src/trace on purpose: the reference must not share the mapping it checks.
 */
function observation(o: Record<string, unknown>): Observation | null {
  const num = (v: unknown) => (v === undefined ? undefined : Number(v));
  switch (o['type']) {
    case 'open':
      return { type: 'OPEN', status: o['status'] as number, epoch: o['epoch'] as string };
    case 'event':
      return o['id'] === undefined ? { type: 'DATA' } : { type: 'EVENT', id: Number(o['id']) };
    case 'keepalive':
      return { type: 'KEEPALIVE' };
    case 'idle-timeout':
      return { type: 'IDLE_TIMEOUT' };
    case 'disconnect':
      return { type: 'DISCONNECT' };
    case 'end':
      return { type: 'END' };
    case 'reconnect':
      return { type: 'RECONNECT', cursor: o['cursor'] as number | null };
    case 'response': {
      const r: Observation = { type: 'RESPONSE', status: o['status'] as number };
      if (o['floor'] !== undefined) r.floor = num(o['floor']) as number;
      if (o['head'] !== undefined) r.head = num(o['head']) as number;
      if (o['epoch'] !== undefined) r.epoch = o['epoch'] as string;
      if (o['durable'] !== undefined) r.durable = o['durable'] as boolean;
      return r;
    }
    default:
      return null;
  }
}

/**
 * The reference: one pass of the real machine through model/run.ts. In a trace with a single
 * stream the context is never reset inside a window, so a reconnect's expected outcome is
 * simply the first of resumed / resumption-failed / session-lost that `context.outcome` shows
 * in its window, else delayed if it showed delayed, else what `settle()` says at the close. A
 * reconnect made while the machine polls, with the cursor of the one before, joins its window
 * (one episode): every reconnect of the episode gets the episode's outcome.
 */
function direct(lines: string[], machine: ClientMachine = clientMachine): Direct[] {
  const out: Direct[] = [];
  let snap: ClientSnapshot = initialSnapshot(machine);
  let last: number | undefined;
  let members: Direct[] = [];
  let cur: { cursor: number | null; decisive?: Outcome; delayed: boolean } | null = null;
  const close = () => {
    if (!cur) return;
    if (cur.decisive === undefined && !cur.delayed) {
      snap = settle(snap, machine);
      cur.decisive = snap.context.outcome as Outcome;
    }
    for (const m of members) out.push({ ...m, expected: cur.decisive ?? 'delayed' });
    members = [];
    cur = null;
  };
  lines.forEach((text, i) => {
    const o = JSON.parse(text) as Record<string, unknown>;
    if (o['type'] === 'decision') {
      const m = members[members.length - 1];
      if (m) m.actual = o['outcome'] as Outcome;
      return;
    }
    if (snap.value === 'connecting' && o['type'] !== 'open' && o['type'] !== 'response') {
      snap = step(snap, { type: 'OPEN', status: 200 }, machine);
    }
    const ob = observation(o) as Observation;
    if (ob.type === 'RECONNECT') {
      const polls = snap.value === 'polling' && cur !== null && cur.cursor === ob.cursor;
      if (!polls) {
        close();
        cur = { cursor: ob.cursor, delayed: false };
      }
      members.push({
        line: i + 1,
        expected: 'delayed',
        ahead: ob.cursor !== null && last !== undefined && ob.cursor > last,
      });
    }
    if (ob.type === 'EVENT') last = ob.id;
    snap = step(snap, ob, machine);
    const outcome = snap.context.outcome;
    if (cur && cur.decisive === undefined && outcome !== null) {
      if (outcome === 'delayed') cur.delayed = true;
      else cur.decisive = outcome;
    }
  });
  close();
  return out;
}

function summaryOf(report: CheckReport): Direct[] {
  return report.reconnects.map((r) => ({
    line: r.line,
    expected: r.expected,
    ...(r.actual !== undefined ? { actual: r.actual as Outcome } : {}),
    ahead: report.cursorAhead.some((c) => c.line === r.line),
  }));
}

/** The checker with `machine` agrees with the direct run of the real machine. */
const agreesWithDirectRun = (machine: ClientMachine) =>
  fc.asyncProperty(oneSessionTrace, async (lines) => {
    const report = await checkTrace(lines, { machine });
    expect(summaryOf(report)).toEqual(direct(lines));
  });

/** The checker never throws and judges every reconnect exactly once, consistently. */
const wellFormedReport = (machine: ClientMachine) =>
  fc.asyncProperty(anyTrace, async (lines) => {
    const report = await checkTrace(lines, { machine });
    const reconnectLines = lines.flatMap((l, i) => (l.includes('"reconnect"') ? [i + 1] : []));
    expect(report.reconnects.map((r) => r.line)).toEqual(reconnectLines);
    for (const r of report.reconnects) {
      expect(OUTCOMES).toContain(r.expected);
      // Waiting (delayed) on a poll that its episode went on from is ok, whatever the outcome.
      const lastOfEpisode = report.reconnects.filter(
        (x) => (x.episode?.first ?? x.line) === (r.episode?.first ?? r.line),
      );
      const waited = r.actual === 'delayed' && lastOfEpisode[lastOfEpisode.length - 1] !== r;
      expect(r.verdict).toBe(
        waited ? 'ok' : verdictOf(r.expected, r.actual as Outcome | undefined),
      );
    }
    const unsafe = report.reconnects.some((r) => r.verdict === 'unsafe-accept');
    const broken = report.breaks.length + report.cursorAhead.length > 0;
    expect(report.exitCode).toBe(unsafe || broken ? 1 : 0);
  });

/** Both engines give the same report on any trace. */
const enginesAgree = (machine: ClientMachine) =>
  fc.asyncProperty(anyTrace, async (lines) => {
    const compiled = await checkTrace(lines, { machine });
    const viaXstate = await checkTrace(lines, { engine: 'xstate' });
    expect(compiled).toEqual(viaXstate);
  });

/** Single observations, with values around a small cursor so that every guard can fire. */
const anyObservation: fc.Arbitrary<Observation> = fc.oneof(
  fc.record(
    {
      type: fc.constant('OPEN' as const),
      status: fc.constantFrom(200, 200, 500),
      epoch: fc.constantFrom('e1', 'e2'),
    },
    { requiredKeys: ['type', 'status'] },
  ),
  {
    weight: 3,
    arbitrary: fc.record(
      { type: fc.constant('EVENT' as const), id: fc.nat(6), stream: fc.constantFrom('a', 'b') },
      { requiredKeys: ['type', 'id'] },
    ),
  },
  { weight: 2, arbitrary: fc.constant<Observation>({ type: 'KEEPALIVE' }) },
  { weight: 1, arbitrary: fc.constant<Observation>({ type: 'DATA' }) },
  fc.constantFrom<Observation>(
    { type: 'IDLE_TIMEOUT' },
    { type: 'PROOF_TIMEOUT' },
    { type: 'DISCONNECT' },
    { type: 'END' },
  ),
  {
    weight: 2,
    arbitrary: fc.record(
      {
        type: fc.constant('RECONNECT' as const),
        cursor: fc.option(fc.nat(6), { freq: 5 }),
        stream: fc.constantFrom('a', 'b'),
      },
      { requiredKeys: ['type', 'cursor'] },
    ),
  },
  {
    weight: 2,
    arbitrary: fc.record(
      {
        type: fc.constant('RESPONSE' as const),
        status: fc.constantFrom(200, 200, 404, 500),
        floor: fc.nat(7),
        epoch: fc.constantFrom('e1', 'e2'),
        durable: fc.boolean(),
      },
      { requiredKeys: ['type', 'status'] },
    ),
  },
);

/** The compiled engine of `machine` steps exactly like xstate runs `reference`. */
/**
 * A poll: a reconnect with a cursor, a bare 200 and the server's end. Single observations reach
 * "awaiting proof, then the stream ends" too rarely to count on, so polls are mixed in.
 */
const poll: fc.Arbitrary<Observation[]> = fc
  .nat(6)
  .map((cursor) => [
    { type: 'RECONNECT', cursor },
    { type: 'RESPONSE', status: 200 },
    { type: 'END' },
  ]);

/**
 * A delay that outlives its budget: a reconnect, a 200 declaring a floor that covers the cursor,
 * and the proof budget's timeout. Single observations reach "delayed, then the budget runs out"
 * too rarely to count on (one seed in some dozens missed it in 3000 runs), and that is the one
 * place where `delayed-forever` differs from the machine.
 */
const delayOutlived: fc.Arbitrary<Observation[]> = fc
  .nat(6)
  .chain((cursor) => fc.tuple(fc.constant(cursor), fc.nat(cursor + 1)))
  .map(([cursor, floor]) => [
    { type: 'RECONNECT', cursor },
    { type: 'RESPONSE', status: 200, floor },
    { type: 'PROOF_TIMEOUT' },
  ]);

/**
 * A stated head around the cursor (docs/spec.md#caught-up): caught up, behind, or owing, then
 * the budget. Single observations rarely state a head equal to the cursor just reconnected with.
 */
const headStated: fc.Arbitrary<Observation[]> = fc
  .nat(6)
  .chain((cursor) => fc.tuple(fc.constant(cursor), fc.integer({ min: -1, max: 2 })))
  .map(([cursor, d]) => [
    { type: 'RECONNECT', cursor },
    { type: 'RESPONSE', status: 200, floor: cursor + 1, head: Math.max(0, cursor + d) },
    { type: 'PROOF_TIMEOUT' },
  ]);

/**
 * A keepalive while a reconnect awaits proof: a reconnect, a 200 without a floor, keepalives,
 * then the budget. The one place where `keepalive-is-proof` differs from the machine; single
 * observations reach it too rarely to count on (seed 1323631873 missed it in 3000 runs).
 */
const keepaliveWhileUnproven: fc.Arbitrary<Observation[]> = fc
  .tuple(fc.nat(6), fc.integer({ min: 1, max: 3 }))
  .map(([cursor, keepalives]) => [
    { type: 'RECONNECT', cursor },
    { type: 'RESPONSE', status: 200 },
    ...Array.from({ length: keepalives }, (): Observation => ({ type: 'KEEPALIVE' })),
    { type: 'PROOF_TIMEOUT' },
  ]);

/** Observation sequences: single observations with polls, outlived delays and heads among them. */
const observationSequence = fc
  .array(
    fc.oneof(
      { weight: 9, arbitrary: anyObservation.map((o) => [o]) },
      poll,
      delayOutlived,
      headStated,
      keepaliveWhileUnproven,
    ),
    {
      maxLength: 40,
      size: 'max',
    },
  )
  .map((parts) => parts.flat());

const stepsAgree = (machine: ClientMachine, reference: ClientMachine) => {
  const compiled = compileMachine(machine);
  const viaXstate = xstateEngine(reference);
  return fc.property(observationSequence, (observations) => {
    let a = compiled.initial();
    let b = viaXstate.initial();
    for (const o of observations) {
      a = compiled.step(a, o);
      b = viaXstate.step(b, o);
      expect({ value: a.value, context: a.context }).toEqual({
        value: b.value,
        context: b.context,
      });
    }
  });
};

async function killed(property: fc.IAsyncProperty<[string[]]>, numRuns = 3000) {
  const result = await fc.check(property, { ...params(numRuns), verbose: 0 });
  return result.failed;
}

describe('the checker on generated traces', () => {
  it('never throws, and judges every reconnect exactly once', async () => {
    await fc.assert(wellFormedReport(clientMachine), params(300));
  });

  it('agrees with running the machine directly (model/run.ts)', async () => {
    await fc.assert(agreesWithDirectRun(clientMachine), params(300));
  });

  it('gives the same report with the compiled engine and with xstate', async () => {
    await fc.assert(enginesAgree(clientMachine), params(200));
  });

  it('compiled engine steps agree with xstate steps, for the machine and every mutant', () => {
    for (const m of [clientMachine, ...MACHINE_MUTANTS.map((x) => x.machine)]) {
      fc.assert(stepsAgree(m, m), params(150));
    }
  });
});

/**
 * Mutants that differ from the machine only when a proof budget runs out while delayed: the
 * generated traces carry no `t`, so neither the checker nor the direct run has a budget there.
 * They are killed by the corpus's budget traces (corpus.test.ts) and the lockstep differential.
 */
const BUDGET_ONLY = ['delayed-forever'];

describe('each property kills its mutants', () => {
  it.each(
    MACHINE_MUTANTS.filter((m) => !BUDGET_ONLY.includes(m.name)).map((m) => [m.name, m] as const),
  )('agreement with the direct run kills %s', async (_name, m) => {
    expect(await killed(agreesWithDirectRun(m.machine))).toBe(true);
  });

  it('the well-formed report property kills a machine that never settles a reconnect', async () => {
    expect(await killed(wellFormedReport(neverTimesOut))).toBe(true);
  });

  it.each(MACHINE_MUTANTS.map((m) => [m.name, m] as const))(
    'step agreement kills the compiled %s against xstate running the machine',
    (_name, m) => {
      const r = fc.check(stepsAgree(m.machine, clientMachine), { ...params(3000), verbose: 0 });
      expect(r.failed).toBe(true);
    },
  );

  it('engine agreement kills a compiled engine running another machine', async () => {
    const m = MACHINE_MUTANTS.find((x) => x.name === 'keepalive-is-proof');
    expect(await killed(enginesAgree((m as { machine: ClientMachine }).machine))).toBe(true);
  });

  it('the direct reference itself separates accepting from escalating outcomes', () => {
    // Guards the reference against a vacuous pass: it must see both kinds of outcome.
    const seen = new Set<boolean>();
    fc.assert(
      fc.property(oneSessionTrace, (lines) => {
        for (const d of direct(lines)) seen.add(isAccepting(d.expected));
      }),
      params(200),
    );
    expect([...seen].sort()).toEqual([false, true]);
  });
});

describe('the grammar generates every shape the rules distinguish', () => {
  it('polling proven, polling into a skip, polling never proven, no cursor after id-less data, a priming event as proof', async () => {
    const seen = new Set<string>();
    await fc.assert(
      fc.asyncProperty(oneSessionTrace, async (lines) => {
        const report = await checkTrace(lines);
        for (const r of report.reconnects) {
          const polls = (r.episode?.polls ?? 1) > 1;
          if (polls && r.code === 'successor') seen.add('poll-proven');
          if (polls && r.code === 'skip') seen.add('poll-skip');
          if (polls && r.code === 'unproven') seen.add('poll-unproven');
          const before = lines.slice(0, r.line - 1);
          if (r.code === 'no-cursor' && before.some((l) => l === '{"type":"event","data":"ping"}'))
            seen.add('no-cursor-after-idless');
          if (r.code === 'successor') {
            const proof = lines[r.decidedAt - 1] ?? '';
            if (proof.includes('"data":""')) seen.add('priming-proof');
          }
        }
      }),
      params(400),
    );
    expect([...seen].sort()).toEqual([
      'no-cursor-after-idless',
      'poll-proven',
      'poll-skip',
      'poll-unproven',
      'priming-proof',
    ]);
  });
});
