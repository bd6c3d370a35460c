/**
 * The worlds of a scope in which each probe of the mutant zoo searches (model/mutants/
 * kill-table.ts names a probe by the kind of world random search generates for it): the same
 * kinds, drawn from the scope's configurations instead of from generators.
 */
import type { WorldKind } from '../world/arbitraries.js';
import { formatConfig, HONEST_POLICIES, POLICIES, type WorldConfig } from '../world/config.js';
import { isValidConfig, scopeConfigs, type Scope } from './scope.js';

function unique(cs: WorldConfig[]): WorldConfig[] {
  const seen = new Set<string>();
  return cs.filter((c) => {
    const k = formatConfig(c);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/**
 * The scope's configurations of a world kind: `mixed` and `any`, every one under every
 * policy; `valid`, those where the configuration-level conditions hold, under each honest
 * policy; `polling`, the valid ones of a polling server without acknowledgment; `promise`,
 * every one whose declared server is `honest-reject` and answers 404 after losing a session;
 * `caught-up`, the valid ones whose server states its head.
 * `break:` kinds are not searched exhaustively (they exist for EachConditionIsNecessary).
 */
export function probeConfigs(scope: Scope, kind: WorldKind): WorldConfig[] {
  const under = (ps: readonly (typeof POLICIES)[number][]) =>
    ps.flatMap((p) => scopeConfigs(scope, p));
  switch (kind) {
    case 'mixed':
    case 'any':
      return under(POLICIES);
    case 'valid':
      return under(HONEST_POLICIES).filter(isValidConfig);
    case 'polling':
      return under(HONEST_POLICIES).filter(
        (c) => isValidConfig(c) && !c.ack && c.Q > 0 && c.priming === 'open',
      );
    case 'caught-up':
      // The valid ones of a server that states its head (the scope's head deployment).
      return under(HONEST_POLICIES).filter((c) => isValidConfig(c) && c.head === true);
    case 'promise':
      return unique(scopeConfigs(scope, 'honest-reject').map((c) => ({ ...c, onRestart: '404' })));
    default:
      throw new Error(`no exhaustive configurations for world kind ${kind}`);
  }
}
