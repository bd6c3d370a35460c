/**
 * The simplified state diagram leaves nothing out silently: every transition of the machine is
 * drawn on an edge or named in the note, exactly once, for the model's machine and for every
 * machine mutant (whose transitions differ); and the happy path and the judgement stay drawn.
 */
import { describe, expect, it } from 'vitest';
import { clientMachine, PENDING_STATES } from '../../model/client-machine.js';
import { MACHINE_MUTANTS } from '../../model/mutants/machine-mutants.js';
import { listTransitions } from '../../model/transitions.js';
import {
  edgeLabel,
  simpleDiagram,
  simplify,
  type Simplified,
} from '../../src/docs-gen/simple-diagram.js';
import type { AnyStateMachine } from 'xstate';

/** What is wrong with a simplification: transitions missing, or accounted for twice. */
function unaccounted(machine: AnyStateMachine, s: Simplified): string[] {
  const seen = new Map<string, number>();
  const count = (id: string) => seen.set(id, (seen.get(id) ?? 0) + 1);
  for (const e of s.edges) for (const t of e.transitions) count(t.id);
  for (const f of s.folds) for (const t of f.transitions) count(t.id);
  const problems: string[] = [];
  for (const t of listTransitions(machine)) {
    const n = seen.get(t.id) ?? 0;
    if (n !== 1) problems.push(`${t.id} accounted for ${n} times`);
  }
  return problems;
}

const machines: [string, AnyStateMachine][] = [
  ['model', clientMachine],
  ...MACHINE_MUTANTS.map((m): [string, AnyStateMachine] => [m.name, m.machine]),
];

describe('the simplified diagram', () => {
  it.each(machines)('accounts for every transition of %s exactly once', (_name, machine) => {
    expect(unaccounted(machine, simplify(machine))).toEqual([]);
  });

  it('the check has teeth: a simplification that drops or doubles a transition is caught', () => {
    const s = simplify(clientMachine);
    const dropped: Simplified = {
      ...s,
      edges: s.edges.map((e, i) => (i === 0 ? { ...e, transitions: [] } : e)),
    };
    expect(unaccounted(clientMachine, dropped)).toEqual([
      'connecting.OPEN#0 accounted for 0 times',
    ]);
    const doubled: Simplified = { ...s, folds: [...s.folds, s.folds[0]!] };
    expect(unaccounted(clientMachine, doubled).length).toBeGreaterThan(0);
  });

  it('draws the happy path and every edge out of a pending state', () => {
    const s = simplify(clientMachine);
    const drawn = new Set(s.edges.map((e) => `${e.source}->${e.target}`));
    for (const hop of [
      'connecting->streaming',
      'streaming->stalled',
      'stalled->reconnecting',
      'reconnecting->awaitingProof',
      'awaitingProof->resumed',
      'reconnecting->delayed',
      'delayed->resumed',
      'awaitingProof->polling',
      'polling->reconnecting',
      'reconnecting->sessionLost',
    ])
      expect(drawn, hop).toContain(hop);
    for (const t of listTransitions(clientMachine))
      if (PENDING_STATES.includes(t.source as never) && t.target !== null && t.target !== t.source)
        expect(drawn, t.id).toContain(`${t.source}->${t.target}`);
    // Far fewer edges than the full diagram's one per transition.
    expect(s.edges.length).toBeLessThan(listTransitions(clientMachine).length / 2);
  });

  it('labels an edge with the reason codes it decides, events sharing them', () => {
    const s = simplify(clientMachine);
    const edge = s.edges.find(
      (e) => e.source === 'reconnecting' && e.target === 'resumptionFailed',
    )!;
    expect(edgeLabel(edge.transitions)).toBe(
      'RESPONSE (bad-status, not-durable, epoch-changed, cursor-below-floor, head-behind), PROOF_TIMEOUT, DISCONNECT, END (no-response)',
    );
  });

  it('highlights a state with a class only when asked', () => {
    expect(simpleDiagram(clientMachine)).not.toContain('classDef');
    expect(simpleDiagram(clientMachine, { highlight: 'polling' })).toMatch(
      /classDef current [^\n]+\n {2}class polling current$/,
    );
  });

  it("draws a mutant's own transitions, not the model's labels", () => {
    const mutant = (n: string) => MACHINE_MUTANTS.find((m) => m.name === n)!.machine;
    const trusting = simpleDiagram(mutant('accept-any-200'), { base: clientMachine });
    // Its floor guard always holds: any answer is "covered", the first event always "succeeds".
    expect(trusting).toContain('reconnecting --> delayed : RESPONSE* (floor-covers)');
    expect(trusting).toContain('awaitingProof --> resumed : EVENT* (successor)');
    expect(trusting).not.toMatch(/EVENT \(cross-stream, rewind, skip\)/);
    expect(trusting).not.toContain('reconnecting --> awaitingProof');
    const keepalive = simpleDiagram(mutant('keepalive-is-proof'), { base: clientMachine });
    expect(keepalive).toContain('awaitingProof --> delayed : KEEPALIVE (floor-covers)');
    // Without a base (or with the model itself) nothing changes.
    expect(simpleDiagram(clientMachine, { base: clientMachine })).toBe(
      simpleDiagram(clientMachine),
    );
    expect(simpleDiagram(clientMachine)).not.toMatch(/[A-Z_]\*/);
  });
});
