/**
 * NoSilentPartialResult: if the client reports the tool complete, every event of the tool was
 * delivered; otherwise it ends in resumption-failed or session-lost and has surfaced an error.
 * Checked on a finished (quiesced) world.
 *
 * A declared replay floor is the one statement a client cannot check and must trust (the
 * seed: "a header/field stating the replay floor" is proof), but it lets a client wait only
 * for the proof budget P of its episode (rule 7.1): a server that declares a floor covering a
 * cursor it no longer retains, and then sends nothing, no longer keeps a correct client waiting
 * forever. The claim applies to every world.
 */
import { clientState } from '../world/client.js';
import { broke, HELD, type Claim } from './types.js';

/** The claim. */
export const noSilentPartialResult: Claim = {
  name: 'NoSilentPartialResult',
  text: 'a completed tool has every event delivered; otherwise the client ends in resumption-failed or session-lost with an error surfaced',
  check(w) {
    const c = w.client;
    const state = clientState(c);
    if (c.done === 'complete') {
      // Every id up to the result's: tool events and priming events share one sequence.
      const ids = c.delivered.map((e) => e.id);
      const last = c.delivered[c.delivered.length - 1]?.id ?? 0;
      const missing: number[] = [];
      const seen = new Set(ids);
      for (let id = 1; id <= last && missing.length < 3; id++) if (!seen.has(id)) missing.push(id);
      if (missing.length > 0)
        return broke(
          `reported the tool complete without event(s) ${missing.join(', ')}${missing.length === 3 ? ', ...' : ''}: a silent partial result`,
        );
      return HELD;
    }
    if (c.done === 'failed' && c.error !== null) {
      if (state === 'resumptionFailed' || state === 'sessionLost') return HELD;
      return broke(`surfaced an error but ended in ${state}`);
    }
    return broke(
      `ended in ${state} with ${c.delivered.filter((e) => !e.priming).length} of ${w.cfg.N} tool events, no result and no error: the agent waits forever or proceeds on a partial result`,
    );
  },
};
