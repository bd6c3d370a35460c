/**
 * The seed's three observed variants, as the observations a client made. Only what the client
 * could see is here; what the server had done (held only 67..130 in its ring, lost its session
 * store) is in the stories, the way the seed tells it, with the numbers of ./founding-incident.ts.
 */
import { describeObservations } from './describe.js';
import { FOUNDING_INCIDENT, INCIDENT_RANGES, showRange } from './founding-incident.js';
import type { Observation } from './observations.js';
import { runObservations, settle, stateOf } from './run.js';

/** One observed incident. */
export interface SeedVariant {
  name: string;
  /** What happened on the server side (not visible to the client). */
  story: string;
  observations: Observation[];
}

function firstEvents(n: number): Observation[] {
  return Array.from({ length: n }, (_, i) => ({ type: 'EVENT', id: i + 1 }) as Observation);
}

/** The three variants, in the seed's order. */
export const SEED_VARIANTS: readonly SeedVariant[] = [
  {
    name: 'seven-minute-stall',
    story:
      `idle timer fired at minute ~7 behind a blocked keepalive; the ${FOUNDING_INCIDENT.ring}-event ` +
      `ring held ${showRange(INCIDENT_RANGES.held)} (${showRange(INCIDENT_RANGES.evicted)} evicted); ` +
      `the server answered 200 and streamed from its head, event ${FOUNDING_INCIDENT.head}: ` +
      `${showRange(INCIDENT_RANGES.lost)} never delivered`,
    observations: [
      { type: 'OPEN', status: 200, epoch: 'e1' },
      ...firstEvents(FOUNDING_INCIDENT.cursor),
      { type: 'IDLE_TIMEOUT' },
      { type: 'RECONNECT', cursor: FOUNDING_INCIDENT.cursor },
      { type: 'RESPONSE', status: 200 },
      { type: 'EVENT', id: FOUNDING_INCIDENT.head },
    ],
  },
  {
    name: 'restart-404',
    story: 'the server restarted with an in-memory session store and answered 404',
    observations: [
      { type: 'OPEN', status: 200, epoch: 'e1' },
      ...firstEvents(FOUNDING_INCIDENT.cursor),
      { type: 'IDLE_TIMEOUT' },
      { type: 'RECONNECT', cursor: FOUNDING_INCIDENT.cursor },
      { type: 'RESPONSE', status: 404 },
    ],
  },
  {
    name: 'restart-empty-200',
    story:
      'the server restarted and implicitly re-created the session under the same ' +
      'Mcp-Session-Id: 200, keepalives, never an event',
    observations: [
      { type: 'OPEN', status: 200, epoch: 'e1' },
      ...firstEvents(FOUNDING_INCIDENT.cursor),
      { type: 'IDLE_TIMEOUT' },
      { type: 'RECONNECT', cursor: FOUNDING_INCIDENT.cursor },
      { type: 'RESPONSE', status: 200 },
      { type: 'KEEPALIVE' },
      { type: 'KEEPALIVE' },
      { type: 'PROOF_TIMEOUT' },
    ],
  },
];

/** The seed's variants walked through the machine, as text (shared by `table` and `explore`). */
export function formatSeedVariants(): string {
  const lines: string[] = [
    "The founding incident's three variants (replay each: explore --scenario NAME):",
  ];
  for (const v of SEED_VARIANTS) {
    const snap = settle(runObservations(v.observations));
    lines.push(`  ${v.name}: ${v.story}`);
    lines.push(`    client saw: ${describeObservations(v.observations)}`);
    lines.push(
      `    -> ${snap.context.outcome ?? stateOf(snap)}: ${snap.context.reason?.text ?? '(no reason)'}`,
    );
  }
  return lines.join('\n');
}
