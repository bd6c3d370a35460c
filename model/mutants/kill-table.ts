/**
 * The kill table, computed from a real run: each mutant is searched with fast-check in the
 * worlds that can expose it (its probes, in order), against the claims of each probe; the
 * first claim that breaks kills it. A client mutant is searched in every kind of world with all
 * claims. A server mutant declares itself honest and is searched twice: against the model's
 * client in valid worlds (NoFalseAlarm, Delivery: a correct client never escalates against an
 * honest server), then against a client that trusts any 200 in worlds whose declared server
 * rejects unreplayable cursors (NoUnprovenAcceptance, NoSilentPartialResult: an honest server
 * makes even a trusting client safe, so a server that does not has broken its promise).
 */
import fc from 'fast-check';
import { CLAIMS, claimNamed, type Claim } from '../claims/index.js';
import type { WorldKind } from '../world/arbitraries.js';
import { counterexampleOf, type Counterexample } from '../world/counterexample.js';
import {
  ClaimBroken,
  replayPathOf,
  toWorldCommands,
  worldProperty,
  type Subject,
} from '../world/property.js';
import { alignedTable } from '../markdown.js';
import { CLIENT_MUTANTS } from './client-mutants.js';
import { MACHINE_MUTANTS } from './machine-mutants.js';
import { HEAD_SERVER_MUTANTS, SERVER_MUTANTS } from './server-mutants.js';
import { BINDING_MUTANTS } from './binding-mutants.js';
import {
  A2A_BINDING_MUTANTS,
  a2aBindingSubject,
  a2aCellClean,
  A2A_SERVER_MUTANTS,
} from './a2a-subjects.js';
import { eraOf, type WorldConfig } from '../world/config.js';

/** One way of searching for a mutant. */
export interface Probe {
  kind: WorldKind;
  claims: readonly Claim[];
  subject: Subject;
  /** `mcp-tasks`: the probe searches task-stream worlds (the binding's own worlds). */
  binding?: string;
  /** Only the configurations this keeps (A2A: the cells where the model's client proves all). */
  keepConfig?: (c: WorldConfig) => boolean;
}

/** A mutant with the probes that search for it. */
export interface MutantEntry {
  name: string;
  side: 'client' | 'server';
  description: string;
  probes: Probe[];
}

/** One row of the kill table. */
export interface KillRow {
  mutant: string;
  side: 'client' | 'server';
  /** The claim that killed it (`null`: it survived the budget). */
  claim: string | null;
  /** Runs until the first failure, over all probes tried. */
  runs: number;
  /** Commands in the shrunk counterexample. */
  shrunkLength: number | null;
  /** Why the claim broke. */
  why: string;
  /** What reproduces it. */
  replay: { kind: WorldKind; seed: number; path: string; replayPath?: string } | null;
  /** The shrunk counterexample (configuration and commands), to print with a timeline. */
  counterexample: Counterexample | null;
}

const trusting = MACHINE_MUTANTS.find((m) => m.name === 'accept-any-200')!.machine;

/** Every mutant of the zoo with its probes. */
export function mutantEntries(): MutantEntry[] {
  const clients: MutantEntry[] = CLIENT_MUTANTS.map((m) => ({
    name: m.name,
    side: 'client',
    description: m.description,
    // Mixed worlds first; then valid worlds of a polling server, where a client that takes an
    // empty poll for loss is seen (they are too rare among mixed worlds to count on); then any
    // worlds against a server that declares a floor for a cursor it no longer holds
    // (evicted-as-known), where a floor is often followed by no event at all: a client that
    // waits on a floor forever is seen there (rule 7.1).
    probes: [
      // A client that takes a head above its cursor for caught up differs from the model only
      // where the events it is owed never come: worlds of a server that states its head and
      // replays nothing (docs/spec.md#caught-up).
      ...(m.name === 'head-ahead-caught-up'
        ? [
            {
              kind: 'caught-up' as const,
              claims: [claimNamed('NoSilentPartialResult'), claimNamed('NoUnprovenAcceptance')],
              subject: { ...m.subject, policy: 'head-no-replay' as const },
            },
          ]
        : []),
      { kind: 'mixed', claims: CLAIMS, subject: m.subject },
      { kind: 'polling', claims: CLAIMS, subject: m.subject },
      { kind: 'any', claims: CLAIMS, subject: { ...m.subject, policy: 'evicted-as-known' } },
    ],
  }));
  const servers: MutantEntry[] = SERVER_MUTANTS.map((m) => ({
    name: m.name,
    side: 'server',
    description: m.description,
    probes: [
      {
        kind: 'valid',
        claims: [claimNamed('NoFalseAlarm'), claimNamed('Delivery')],
        subject: { policy: m.name },
      },
      {
        kind: 'promise',
        claims: [claimNamed('NoUnprovenAcceptance'), claimNamed('NoSilentPartialResult')],
        subject: { policy: m.name, machine: trusting },
      },
    ],
  }));
  // The servers of a stated head, against the model's client in caught-up worlds.
  const heads: MutantEntry[] = HEAD_SERVER_MUTANTS.map((m) => ({
    name: m.name,
    side: 'server',
    description: m.description,
    probes: [
      {
        kind: 'caught-up',
        claims: [claimNamed('NoFalseAlarm'), claimNamed('Delivery')],
        subject: { policy: m.name },
      },
    ],
  }));
  return [...clients, ...servers, ...heads];
}

/**
 * The mutants a task-stream world can expose (`explore --binding mcp-tasks`): each binding
 * mutant, and each client mutant, searched in task-stream worlds of every kind with all claims.
 */
export function taskMutantEntries(): MutantEntry[] {
  const probesOf = (subject: Subject) => bindingProbes('mcp-tasks', subject);
  return [
    ...BINDING_MUTANTS.map((m) => clientEntry(m, probesOf(m.subject))),
    ...CLIENT_MUTANTS.map((m) => clientEntry(m, probesOf(m.subject))),
  ];
}

/** A binding's world of every kind with all claims, for one subject (only `keep`'s configurations). */
function bindingProbes(
  binding: string,
  subject: Subject,
  keep?: (c: WorldConfig) => boolean,
): Probe[] {
  return (['mixed', 'any', 'valid'] as const).map((kind) => ({
    kind,
    claims: CLAIMS,
    subject,
    binding,
    ...(keep !== undefined ? { keepConfig: keep } : {}),
  }));
}

/** A client mutant's entry with its probes. */
function clientEntry(m: { name: string; description: string }, probes: Probe[]): MutantEntry {
  return { name: m.name, side: 'client', description: m.description, probes };
}

/**
 * The mutants an A2A world can expose (`explore --binding a2a`): each `a2a` binding mutant and
 * each client mutant, in A2A worlds of every kind (every era) with all claims; each A2A server
 * mutant, declared as the honest `a2a-sdk`, first against the model's client in valid worlds,
 * then against a client that trusts any 200 in any worlds.
 */
export function a2aMutantEntries(): MutantEntry[] {
  // A mutant is killed only where the model's client proves every claim (no era gap).
  const clean = (c: WorldConfig) => a2aCellClean(c.policy, eraOf(c));
  const probesOf = (subject: Subject) => bindingProbes('a2a', subject, clean);
  return [
    ...A2A_BINDING_MUTANTS.map((m) => clientEntry(m, probesOf(a2aBindingSubject(m.rules)))),
    ...CLIENT_MUTANTS.map((m) => clientEntry(m, probesOf(m.subject))),
    ...A2A_SERVER_MUTANTS.map((m) => ({
      name: m.name,
      side: 'server' as const,
      description: m.description,
      probes: [
        {
          kind: 'valid' as const,
          claims: CLAIMS,
          subject: { policy: m.name },
          binding: 'a2a',
          keepConfig: clean,
        },
        {
          kind: 'any' as const,
          claims: CLAIMS,
          subject: { policy: m.name, machine: trusting },
          binding: 'a2a',
          keepConfig: clean,
        },
      ],
    })),
  ];
}

/** Options of {@link killTable}. */
export interface KillOptions {
  /** Runs per probe at most (the bound a kill must happen within). */
  runsPerProbe?: number;
  seed?: number;
  /** Only these mutants. */
  only?: readonly string[];
  /** Called after each row. */
  onRow?: (row: KillRow) => void;
  /** The mutants to search (default: the SSE zoo, {@link mutantEntries}). */
  entries?: readonly MutantEntry[];
}

/** Searches one mutant; the row says who killed it, how fast, and how to replay it. */
export function killMutant(entry: MutantEntry, runsPerProbe: number, seed: number): KillRow {
  let runs = 0;
  for (const probe of entry.probes) {
    const prop = worldProperty({
      kind: probe.kind,
      claims: probe.claims,
      subject: probe.subject,
      ...(probe.binding !== undefined ? { binding: probe.binding } : {}),
      ...(probe.keepConfig !== undefined ? { keepConfig: probe.keepConfig } : {}),
    });
    const d = fc.check(prop, { numRuns: runsPerProbe, seed });
    if (!d.failed) {
      runs += d.numRuns;
      continue;
    }
    runs += d.numRuns;
    const err = d.errorInstance;
    const cmds = d.counterexample?.[1];
    const replayPath = cmds ? replayPathOf(cmds) : undefined;
    return {
      mutant: entry.name,
      side: entry.side,
      claim: err instanceof ClaimBroken ? err.claim.name : 'error',
      runs,
      shrunkLength: cmds ? toWorldCommands(cmds).length : null,
      why: err instanceof ClaimBroken ? err.verdict.why : String(err),
      replay: {
        kind: probe.kind,
        seed: d.seed,
        path: d.counterexamplePath ?? '',
        ...(replayPath !== undefined ? { replayPath } : {}),
      },
      counterexample: counterexampleOf(d, {
        kind: probe.kind,
        subject: probe.subject,
        subjectName: entry.name,
      }),
    };
  }
  return {
    mutant: entry.name,
    side: entry.side,
    claim: null,
    runs,
    shrunkLength: null,
    why: 'survived',
    replay: null,
    counterexample: null,
  };
}

/** The kill table of the whole zoo (or of `only`), from a real run. */
export function killTable(options: KillOptions = {}): KillRow[] {
  const runsPerProbe = options.runsPerProbe ?? 3_000;
  const seed = options.seed ?? 1;
  const rows: KillRow[] = [];
  for (const entry of options.entries ?? mutantEntries()) {
    if (options.only && !options.only.includes(entry.name)) continue;
    const row = killMutant(entry, runsPerProbe, seed);
    rows.push(row);
    options.onRow?.(row);
  }
  return rows;
}

/** The kill table as a Markdown table, aligned the way Prettier aligns it. */
export function formatKillTable(rows: readonly KillRow[]): string {
  const head = ['mutant', 'side', 'killed by', 'runs to kill', 'shrunk length'];
  const right = [false, false, false, true, true];
  const body = rows.map((r) => [
    r.mutant,
    r.side,
    r.claim ?? '**survived**',
    String(r.runs),
    r.shrunkLength === null ? '-' : String(r.shrunkLength),
  ]);
  return alignedTable(head, body, right);
}
