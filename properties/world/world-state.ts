/**
 * What two runs of the same world are compared by: everything a finished world holds that a
 * claim, a report or a later command could read, and every claim's and condition's verdict.
 */
import { CLAIMS } from '../../model/claims/index.js';
import { brokenConditions } from '../../model/world/validity.js';
import type { World } from '../../model/world/world.js';

/** The end state of a world: client, machine, server, network, ground truth and clock. */
export function stateOf(w: World) {
  const { cache: _cache, snap, ...client } = w.client;
  return {
    now: w.clock.now,
    machine: { value: snap.value, context: snap.context },
    client,
    server: w.server,
    net: w.net,
    truth: w.truth,
  };
}

/** Every claim's verdict and the conditions of validity the world broke. */
export const verdicts = (w: World) => ({
  claims: CLAIMS.map((c) => c.check(w)),
  broken: brokenConditions(w),
});
