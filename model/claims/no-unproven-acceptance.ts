/**
 * NoUnprovenAcceptance: whatever the client delivered to the application while accepting is
 * exactly the prefix 1..cursor of its stream's log: in order, no gap, no duplicate, same stream
 * and session. Delivered events are never taken back, so checking the final delivered list is
 * checking every moment the client was accepting.
 */
import { TOOL_STREAM } from '../world/frames.js';
import { broke, HELD, type Claim } from './types.js';

/** The claim. */
export const noUnprovenAcceptance: Claim = {
  name: 'NoUnprovenAcceptance',
  text: 'everything delivered is exactly the prefix 1..cursor of the stream: in order, no gap, no duplicate, same stream and session',
  check(w) {
    const { delivered } = w.client;
    for (let i = 0; i < delivered.length; i++) {
      const e = delivered[i]!;
      const expected = i + 1;
      if (e.stream !== TOOL_STREAM)
        return broke(
          `delivered event ${e.id} of stream "${e.stream}" as event ${expected} of stream "${TOOL_STREAM}"`,
        );
      if (e.epoch !== w.truth.epoch)
        return broke(`delivered event ${e.id} of session ${e.epoch}, not of the tool's session`);
      if (e.id > expected)
        return broke(
          `delivered event ${e.id} right after ${expected - 1}: events ${expected}..${e.id - 1} silently skipped`,
        );
      if (e.id < expected)
        return broke(`delivered event ${e.id} again (or out of order) after ${expected - 1}`);
      if (w.truth.emittedAt[e.id] !== e.emittedAt)
        return broke(`delivered event ${e.id} is not the event the server emitted as ${e.id}`);
    }
    if (w.client.cursor !== delivered.length)
      return broke(`cursor ${w.client.cursor} is not the last delivered id ${delivered.length}`);
    return HELD;
  },
};
