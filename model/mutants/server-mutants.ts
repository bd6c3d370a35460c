/**
 * The server mutants: the faulty reconnect policies of model/world/policies.ts, each declared
 * honest by its configuration while it runs the faulty policy.
 */
import { FAULTY_POLICIES, HEAD_FAULTY_POLICIES, type PolicyName } from '../world/config.js';

/** A deliberately wrong server. */
export interface ServerMutant {
  name: PolicyName;
  description: string;
}

const DESCRIPTIONS: Record<string, string> = {
  head: "answers 200 without a floor and streams from its head (the seed's first variant)",
  'durable-restart-404': 'answers 404 after any restart, although its session store is durable',
  'restart-empty-200':
    "re-creates a lost session implicitly: 200, keepalives, no event (the seed's third variant)",
  'partial-from-floor': 'for an evicted cursor replays from its floor without declaring it',
  'reorder-same-tick': 'replays events emitted in the same tick in reverse order',
  'other-stream': "replays the other stream's events after the cursor before the tool's",
  'evicted-as-known':
    'answers an evicted cursor as if known: declares floor c+1, replays what it has',
  'false-head':
    'states a head it does not have: head = cursor (caught up) while it holds more, replays nothing, goes live (its next event is a skip)',
  'head-no-replay': 'states its true head above the cursor, but replays nothing and goes live',
};

/** Every server mutant, in the order. */
export const SERVER_MUTANTS: readonly ServerMutant[] = FAULTY_POLICIES.map((name) => ({
  name,
  description: DESCRIPTIONS[name] ?? name,
}));

/** The servers that state a head they do not honour (searched in caught-up worlds). */
export const HEAD_SERVER_MUTANTS: readonly ServerMutant[] = HEAD_FAULTY_POLICIES.map((name) => ({
  name,
  description: DESCRIPTIONS[name] ?? name,
}));
