/**
 * The seed's three observed variants, as the observations a client made. Only what the client
 * could see is here; what the server had done (evicted 42..129, lost its session store) is in
 * the comments, the way the seed tells it.
 */
import { describeObservations } from './describe.js';
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
      'idle timer fired at minute ~7 behind a blocked keepalive; the 64-event ring had evicted ' +
      '42..129; the server answered 200 and streamed from its head, event 130',
    observations: [
      { type: 'OPEN', status: 200, epoch: 'e1' },
      ...firstEvents(41),
      { type: 'IDLE_TIMEOUT' },
      { type: 'RECONNECT', cursor: 41 },
      { type: 'RESPONSE', status: 200 },
      { type: 'EVENT', id: 130 },
    ],
  },
  {
    name: 'restart-404',
    story: 'the server restarted with an in-memory session store and answered 404',
    observations: [
      { type: 'OPEN', status: 200, epoch: 'e1' },
      ...firstEvents(41),
      { type: 'IDLE_TIMEOUT' },
      { type: 'RECONNECT', cursor: 41 },
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
      ...firstEvents(41),
      { type: 'IDLE_TIMEOUT' },
      { type: 'RECONNECT', cursor: 41 },
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
