/**
 * The seed's incident as fixed command sequences: the 7-minute stall behind a 64-event ring and
 * 15 s keepalives (cursor 41, head 130), the 404 after a restart, and the 200-empty re-creation.
 */
import { FOUNDING_INCIDENT, INCIDENT_RANGES, showRange } from '../founding-incident.js';
import { SEED_CONFIG, type WorldConfig } from './config.js';
import type { WorldCommand } from './commands.js';

/** One fixed scenario. */
export interface Scenario {
  name: string;
  /** What happens, in the seed's words. */
  story: string;
  cfg: WorldConfig;
  commands: WorldCommand[];
}

const emit: WorldCommand = { kind: 'Emit', stream: 'tool' };
const wait = (ms: number): WorldCommand => ({ kind: 'Advance', ms });

/** Events 1..41 every 8 s, each read when it arrives: the client's cursor is 41 at 5:28. */
function first41(): WorldCommand[] {
  const out: WorldCommand[] = [];
  for (let i = 0; i < 41; i++) out.push(wait(8_000), emit);
  out.push({ kind: 'Drain' });
  return out;
}

/** The three scenarios, in the seed's order. */
export const SEED_SCENARIOS: readonly Scenario[] = [
  {
    name: 'seven-minute-stall',
    story:
      "a large model call saturates the client's event loop, which also reads the socket; 89 events " +
      'burst out, the 8-frame socket fills, the keepalive blocks behind it, the 90 s idle timer ' +
      `fires at ~7 min; the reconnect carries cursor ${FOUNDING_INCIDENT.cursor} while the ` +
      `${FOUNDING_INCIDENT.ring}-event ring holds ${showRange(INCIDENT_RANGES.held)} and the server ` +
      `answers 200 from its head, event ${FOUNDING_INCIDENT.head}`,
    cfg: { ...SEED_CONFIG, N: 140 },
    commands: [
      ...first41(),
      { kind: 'SaturateApp' },
      ...Array.from({ length: 89 }, () => [wait(1_000), emit]).flat(),
      wait(1_000),
      { kind: 'ReleaseApp' },
      wait(1_000),
    ],
  },
  {
    name: 'restart-404',
    story: 'the server restarts with an in-memory session store; the reconnect is answered 404',
    cfg: { ...SEED_CONFIG, N: 140, policy: 'honest', durable: false, onRestart: '404' },
    commands: [...first41(), { kind: 'Restart' }, wait(5_000)],
  },
  {
    name: 'restart-empty-200',
    story:
      'the server restarts with an in-memory store and re-creates the session implicitly under the ' +
      'same id: 200, keepalives, never an event',
    cfg: { ...SEED_CONFIG, N: 140, policy: 'honest', durable: false, onRestart: 'recreate' },
    commands: [...first41(), { kind: 'Restart' }, wait(5_000)],
  },
];
