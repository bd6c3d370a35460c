/** The configurations the playground offers as a starting point. */
import { DEFAULT_CONFIG, SEED_CONFIG, type WorldConfig } from '../../model/world/config.js';
import { SEED_SCENARIOS } from '../../model/world/scenarios.js';

/** A named configuration, with a line saying what it is. */
export interface Preset {
  name: string;
  about: string;
  cfg: WorldConfig;
}

/** The seed's deployment, a valid world, a polling server, and each incident's configuration. */
export const PRESETS: readonly Preset[] = [
  {
    name: 'seed',
    about:
      "the incident's deployment: 64-event ring, 15 s keepalives, 90 s idle timer, coupled read path, a server that answers from its head",
    cfg: SEED_CONFIG,
  },
  {
    name: 'valid',
    about:
      'every condition of validity can hold: decoupled read path, durable store, honest server that states its floor',
    cfg: DEFAULT_CONFIG,
  },
  {
    name: 'polling',
    about:
      'a 2025-11-25 polling server without a replay acknowledgment: it ends an idle resumed stream after 5 s',
    cfg: { ...DEFAULT_CONFIG, ack: false, Q: 5_000, P: 60_000 },
  },
  ...SEED_SCENARIOS.map((s) => ({ name: s.name, about: s.story, cfg: s.cfg })),
];
