/**
 * Why a transition of the model's machine is taken by no reachable state of the world. The
 * search computes which transitions are unreached (`mcp-resumption verify --docs`); this
 * table says why, for each one, and `properties/verify/unreached.test.ts` fails when a
 * transition is unreached without a reason here, or is reached although a reason here says it
 * cannot be. Reasons that depend on the scope say which bound hides the transition.
 */

const NO_DATA = 'the world sends no id-less data: every frame it writes is an event with an id';
const NO_REOPEN = 'the client never re-issues the tool call (OPEN comes once, at the start)';
const NO_DROP =
  'the model client always sends its cursor once it has one (only the drops-cursor mutant forgets it)';
const STOPS = 'the client stops after surfacing an escalation: it never reconnects again';
const WITH_REQUEST =
  'a response arrives with its request (no reconnect is in flight when time passes or the network drops)';
const NO_REWIND =
  'no server policy replays an id at or below the cursor (head starts above it, the others from its successor or from a higher floor)';
const FIRST_STREAM =
  "the first stream carries the tool's own events, written in emission order: no gap, no other stream";

/** The reason for each transition no reachable state takes. */
export const UNREACHED_REASONS: Readonly<Record<string, string>> = {
  'streaming.EVENT#0': FIRST_STREAM,
  'streaming.EVENT#2': FIRST_STREAM,
  'streaming.DATA#0': NO_DATA,
  'streaming.END#0':
    'only resumed streams end: the polling server closes a resumed stream, and an honest server ends at once only a replay it cannot serve',
  'streaming.RECONNECT#0': NO_DROP,
  'streaming.RECONNECT#2': NO_DATA,
  'stalled.RECONNECT#0': NO_DROP,
  'stalled.RECONNECT#2': NO_DATA,
  'stalled.OPEN#0': NO_REOPEN,
  'closed.RECONNECT#0': NO_DROP,
  'closed.RECONNECT#2': NO_DATA,
  'closed.OPEN#0': NO_REOPEN,
  'reconnecting.RESPONSE#2':
    'beyond the small scope: needs a store that says it is not durable (onRestart=not-durable, in medium and large)',
  'reconnecting.RESPONSE#3':
    'beyond the small scope: needs a store that states its new epoch (onRestart=new-epoch, in medium and large)',
  'reconnecting.RESPONSE#5':
    'no server of the scope states a head below the cursor (rule 5.3): an honest one states its true head, and a session re-created after a restart answers with no acknowledgment at all',
  'reconnecting.PROOF_TIMEOUT#0': WITH_REQUEST,
  'reconnecting.DISCONNECT#0': WITH_REQUEST,
  'reconnecting.END#0': WITH_REQUEST,
  'awaitingProof.EVENT#2': NO_REWIND,
  'awaitingProof.DATA#0': NO_DATA,
  'polling.RECONNECT#0': NO_DROP,
  'delayed.EVENT#2': NO_REWIND,
  'delayed.DATA#0': NO_DATA,
  'delayed.RECONNECT#0': NO_DROP,
  'delayed.RECONNECT#1':
    'beyond the small scope: a reconnect from delayed is a second reconnect (the small scope allows one)',
  'resumed.EVENT#2':
    'needs three events: a gap after a proven first event comes only from reordering a later same-tick run (reorder-same-tick), and N is 2 in every scope',
  'resumed.DATA#0': NO_DATA,
  'resumed.RECONNECT#0': NO_DROP,
  'resumed.RECONNECT#1': NO_DATA,
  'resumed.RECONNECT#2':
    'beyond the small scope: a reconnect from resumed is a second reconnect (the small scope allows one)',
  'resumptionFailed.RECONNECT#0': STOPS,
  'resumptionFailed.RECONNECT#1': STOPS,
  'resumptionFailed.RECONNECT#2': STOPS,
  'resumptionFailed.RECONNECT#3': STOPS,
  'resumptionFailed.OPEN#0': NO_REOPEN,
  'resumptionFailed.EVENT#0':
    'the client stops reading a stream once its reconnect failed, so no event reaches the machine after resumption-failed (and no id-less data taints it: the world sends none)',
  'resumptionFailed.DATA#0': NO_DATA,
  'sessionLost.RECONNECT#0': STOPS,
  'sessionLost.RECONNECT#1': STOPS,
  'sessionLost.OPEN#0': NO_REOPEN,
};
