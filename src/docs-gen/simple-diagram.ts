/**
 * The simplified state diagram: the happy path and the decision fan-out of the client machine,
 * with the edges that repeat folded into one note. The full diagram (./diagram.ts) has an edge
 * per transition, 59 of them, and cannot be read; this one draws the edges a learner follows
 * and says in words what it leaves out. Both are generated from the machine, and every
 * transition is either drawn or named in the note ({@link simplify}; a test checks it).
 */
import type { AnyStateMachine } from 'xstate';
import { ACCEPTING_STATES, PENDING_STATES } from '../../model/client-machine.js';
import { always, never } from '../../model/mutants/constant-guards.js';
import { listTransitions, type TransitionInfo } from '../../model/transitions.js';

/** A folded group of transitions: why they are left out, and which they are. */
export interface Fold {
  /** What the note says before the edges: `stays`, `rule 0`, ... */
  why: string;
  transitions: TransitionInfo[];
}

/** A drawn edge: every transition from `source` to `target` that is not folded. */
export interface SimpleEdge {
  source: string;
  target: string;
  transitions: TransitionInfo[];
}

/** The simplified diagram as data: what is drawn and what is folded into the note. */
export interface Simplified {
  initial: string;
  edges: SimpleEdge[];
  folds: Fold[];
}

const ACCEPTING = new Set<string>(ACCEPTING_STATES);
const PENDING = new Set<string>(PENDING_STATES);

/** A group of one event to one target from this many states or more is "repeated". */
const REPEATED = 3;

/** A guard's implementation in `machine` (what `.provide()` put there). */
function guardImpl(machine: AnyStateMachine, name: string): unknown {
  return (machine.implementations.guards as Record<string, unknown>)[name];
}

/**
 * The transitions `machine` can really take, read against `base` (the model's machine) when it
 * is a mutant built with `.provide()`: the structure is the same, only guards differ, so a
 * diagram of the structure alone would draw the model's labels for a run they are false for.
 * A guard switched off (`never`) removes its transition; a guard made unconditional (`always`)
 * loses its guard and removes the candidates after it for the same event; any other changed
 * guard marks its event with `*`.
 */
export function effectiveTransitions(
  machine: AnyStateMachine,
  base?: AnyStateMachine,
): TransitionInfo[] {
  const all = listTransitions(machine);
  if (base === undefined || base === machine) return all;
  const out: TransitionInfo[] = [];
  const cut = new Set<string>();
  for (const t of all) {
    const key = `${t.source}.${t.event}`;
    if (cut.has(key)) continue;
    const impl = t.guard === null ? undefined : guardImpl(machine, t.guard);
    if (t.guard === null || impl === guardImpl(base, t.guard)) out.push(t);
    else if (impl === never) continue;
    else if (impl === always) {
      out.push({ ...t, guard: null, event: `${t.event}*` });
      cut.add(key);
    } else out.push({ ...t, event: `${t.event}*` });
  }
  return out;
}

/**
 * Sorts the transitions into drawn edges and folds. The rules, first match wins:
 * self-loops; rule 0 (a reconnect without a cursor fails, from every state that takes
 * RECONNECT); OPEN after the first stream; edges out of a decided failure; RECONNECT out of an
 * accepted stream. Of the rest, an event that leads from three or more states to one target is
 * drawn from the first of them only, unless the edge is part of the judgement (out of a pending
 * state, or deciding an outcome): the decision fan-out is always drawn.
 */
export function simplify(machine: AnyStateMachine, base?: AnyStateMachine): Simplified {
  const initial = String(machine.root.initial.target[0]?.key);
  const all = effectiveTransitions(machine, base);
  const failed = new Set(
    all
      .filter(
        (t) => t.decides && t.decides.outcome !== 'resumed' && t.decides.outcome !== 'delayed',
      )
      .map((t) => t.target ?? t.source),
  );
  const rules: [string, (t: TransitionInfo) => boolean][] = [
    ['stays', (t) => (t.target ?? t.source) === t.source],
    ['rule 0, no cursor no resumption', (t) => t.event === 'RECONNECT' && t.decides !== null],
    ['a fresh stream', (t) => t.event === 'OPEN' && t.source !== initial],
    ['after a decided failure', (t) => failed.has(t.source)],
    ['abandoning an open stream', (t) => t.event === 'RECONNECT' && ACCEPTING.has(t.source)],
  ];
  const folds: Fold[] = rules.map(([why]) => ({ why, transitions: [] }));
  const rest: TransitionInfo[] = [];
  for (const t of all) {
    const k = rules.findIndex(([, test]) => test(t));
    if (k >= 0) folds[k]!.transitions.push(t);
    else rest.push(t);
  }
  // The judgement is always drawn: every edge out of a pending state, and every decision.
  const judged = (t: TransitionInfo) => PENDING.has(t.source) || t.decides !== null;
  const groups = new Map<string, string[]>();
  for (const t of rest) {
    if (judged(t)) continue;
    const key = `${t.event} ${t.target}`;
    const sources = groups.get(key) ?? [];
    if (!sources.includes(t.source)) groups.set(key, [...sources, t.source]);
  }
  // An event that leads from many states to one target is drawn from the first of them.
  const drawn: TransitionInfo[] = [];
  const repeated = new Map<string, Fold>();
  for (const t of rest) {
    const sources = groups.get(`${t.event} ${t.target}`) ?? [];
    const first = sources[0]!;
    if (judged(t) || sources.length < REPEATED || t.source === first) {
      drawn.push(t);
      continue;
    }
    const fold = repeated.get(first) ?? { why: `as from ${first}`, transitions: [] };
    fold.transitions.push(t);
    repeated.set(first, fold);
  }
  folds.push(...repeated.values());
  const edges: SimpleEdge[] = [];
  for (const t of drawn) {
    const target = t.target ?? t.source;
    const edge = edges.find((e) => e.source === t.source && e.target === target);
    if (edge) edge.transitions.push(t);
    else edges.push({ source: t.source, target, transitions: [t] });
  }
  return { initial, edges, folds: folds.filter((f) => f.transitions.length > 0) };
}

/**
 * A label for transitions: per event, the reason codes they decide (`EVENT (skip, rewind)`) or
 * else their guards (`EVENT [firstIdIsSuccessor]`); events with the same detail share it
 * (`PROOF_TIMEOUT, DISCONNECT, END (no-response)`).
 */
export function edgeLabel(ts: readonly TransitionInfo[]): string {
  const details = new Map<string, { codes: string[]; guards: string[] }>();
  for (const t of ts) {
    const d = details.get(t.event) ?? { codes: [], guards: [] };
    if (t.decides && !d.codes.includes(t.decides.code)) d.codes.push(t.decides.code);
    else if (!t.decides && t.guard && !d.guards.includes(t.guard)) d.guards.push(t.guard);
    details.set(t.event, d);
  }
  const bySuffix = new Map<string, string[]>();
  for (const [event, d] of details) {
    const suffix =
      d.codes.length > 0
        ? ` (${d.codes.join(', ')})`
        : d.guards.length > 0
          ? ` [${d.guards.join(', ')}]`
          : '';
    bySuffix.set(suffix, [...(bySuffix.get(suffix) ?? []), event]);
  }
  return [...bySuffix].map(([suffix, events]) => `${events.join(', ')}${suffix}`).join(', ');
}

/**
 * `why: X, Y → target from a, b`: one line per target and set of source states, for the note.
 */
function foldLines(fold: Fold): string[] {
  const sourcesOf = new Map<string, Set<string>>();
  const where = (t: TransitionInfo) => ((t.target ?? t.source) === t.source ? '' : t.target);
  for (const t of fold.transitions) {
    const key = `${where(t)} ${t.event}`;
    sourcesOf.set(key, (sourcesOf.get(key) ?? new Set()).add(t.source));
  }
  const groups = new Map<string, TransitionInfo[]>();
  for (const t of fold.transitions) {
    const target = t.target ?? t.source;
    const stays = target === t.source;
    const sources = [...sourcesOf.get(`${where(t)} ${t.event}`)!].join(', ');
    const key = `${stays ? 'in' : `→ ${target} from`} ${sources}`;
    groups.set(key, [...(groups.get(key) ?? []), t]);
  }
  return [...groups].map(([where, ts]) => `${fold.why}: ${edgeLabel(ts)} ${where}`);
}

/** Options of {@link simpleDiagram}. */
export interface SimpleDiagramOptions {
  /** A state to highlight (the playground's current state). */
  highlight?: string;
  /** The model's machine, when `machine` is a mutant of it: draw what the mutant really takes. */
  base?: AnyStateMachine;
}

/** The folded transitions as lines: `why: EVENT, DATA → target from a, b`. */
export function foldedList(machine: AnyStateMachine, base?: AnyStateMachine): string[] {
  return simplify(machine, base).folds.flatMap(foldLines);
}

/**
 * Mermaid source of the simplified state diagram. Mermaid draws a note as a narrow column, so
 * the note only counts the folded transitions; {@link foldedList} names them.
 */
export function simpleDiagram(
  machine: AnyStateMachine,
  options: SimpleDiagramOptions = {},
): string {
  const s = simplify(machine, options.base);
  const lines = ['stateDiagram-v2', `  [*] --> ${s.initial}`];
  for (const e of s.edges)
    lines.push(`  ${e.source} --> ${e.target} : ${edgeLabel(e.transitions)}`);
  const folded = s.folds.reduce((n, f) => n + f.transitions.length, 0);
  const anchor = s.edges.find((e) => !s.edges.some((x) => x.source === e.target))?.target;
  lines.push(
    `  note left of ${anchor ?? s.initial}`,
    `    ${folded} more transitions folded:`,
    '    self-loops, rule 0, and edges',
    '    repeated from other states',
    '    (listed with the diagram)',
    '  end note',
  );
  if (options.highlight !== undefined) {
    lines.push('  classDef current fill:#ffe082,stroke:#e65100,stroke-width:3px');
    lines.push(`  class ${options.highlight} current`);
  }
  return lines.join('\n');
}
