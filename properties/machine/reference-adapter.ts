/**
 * A system under test built from the seed's reference function (src/reference.ts): it consumes
 * the same observations as the machine and decides each reconnect by calling
 * `verifyResumption`. Path tests and the differential property compare it with the machine
 * step by step, so a disagreement names the path on which it happens.
 *
 * The seed speaks of one reconnect at a time and has no stream or epoch; this adapter supplies
 * the vocabulary around it (documented in docs/deviations.md, "Mapping the seed's vocabulary"):
 * - an epoch change is the seed's "session not durable" (implicit re-creation);
 * - an event of another stream is not an event of this stream: it fails the reconnect;
 * - no response before a disconnect / proof timeout, and a reconnect without a cursor, fail;
 * - where the seed fails an empty stream although a declared floor covers the cursor, the
 *   adapter reports `delayed`: a documented deviation (the model follows the seed's text);
 * - where the seed fails an empty stream that the server ended cleanly, the adapter polls (MCP
 *   2025-11-25 lets a server close a stream at will): unproven, failed only when the proof
 *   timer fires, or on the next reconnect's evidence;
 * - a stated head (the seed has none): below the cursor fails, equal to it is resumed (caught
 *   up: nothing is owed), above it changes nothing (docs/spec.md#caught-up);
 * - id-less data: delivered on an accepted stream, before proof, or after a failed reconnect, no
 *   later reconnect can be proven until an event with an id follows; before any proof it also
 *   fails the reconnect (the seed's events all carry ids, so it has no word for them).
 */
import type { ClientStateName } from '../../model/client-machine.js';
import type { Observation } from '../../model/observations.js';
import type { Outcome } from '../../model/outcomes.js';
import {
  StreamResumptionError,
  verifyResumption,
  type ReconnectResult,
} from '../../src/reference.js';

type Phase = ClientStateName;

const ok = (id: number): ReconnectResult => ({
  httpStatus: 200,
  replayFloor: null,
  firstEvent: { id, kind: 'message', payload: {} },
  sessionDurable: true,
});

/** The seed's verdict: `null` when it accepts, otherwise its error. */
function seedVerdict(cursor: number, result: ReconnectResult): StreamResumptionError | null {
  try {
    verifyResumption(cursor, result);
    return null;
  } catch (e) {
    if (e instanceof StreamResumptionError) return e;
    throw e;
  }
}

/** Observes like the machine, decides like the seed. */
export class ReferenceAdapter {
  phase: Phase = 'connecting';
  outcome: Outcome | null = null;
  private cursor: number | null = null;
  private stream: string | null = null;
  private epoch: string | null = null;
  private idless = false;

  private decide(outcome: Outcome, phase: Phase): void {
    this.outcome = outcome;
    this.phase = phase;
  }

  private fail(): void {
    this.decide('resumption-failed', 'resumptionFailed');
  }

  private foreign(stream: string | undefined): boolean {
    return stream !== undefined && this.stream !== null && stream !== this.stream;
  }

  private accept(id: number, stream: string | undefined): void {
    this.cursor = id;
    this.idless = false;
    this.stream = this.stream ?? stream ?? null;
  }

  observe(o: Observation): void {
    const p = this.phase;
    const streamOpen = p === 'streaming' || p === 'resumed' || p === 'delayed';
    const canReconnect =
      streamOpen || ['stalled', 'closed', 'polling', 'resumptionFailed', 'sessionLost'].includes(p);
    switch (o.type) {
      case 'OPEN': {
        // A poll is still being judged: like a pending reconnect, it does not take a new stream.
        const opens = p === 'connecting' || (canReconnect && !streamOpen && p !== 'polling');
        if (o.status === 200 && opens) {
          this.phase = 'streaming';
          this.outcome = null;
          this.cursor = null;
          this.stream = null;
          this.idless = false;
          this.epoch = o.epoch ?? null;
        }
        return;
      }
      case 'EVENT':
        if (p === 'streaming' || p === 'resumed') {
          if (this.foreign(o.stream)) return this.fail();
          if (this.cursor !== null && seedVerdict(this.cursor, ok(o.id)) !== null)
            return this.fail();
          this.accept(o.id, o.stream);
        } else if (p === 'awaitingProof' || p === 'delayed') {
          if (this.foreign(o.stream)) return this.fail();
          if (this.cursor !== null && seedVerdict(this.cursor, ok(o.id)) !== null)
            return this.fail();
          this.accept(o.id, o.stream);
          this.decide('resumed', 'resumed');
        } else if (p === 'resumptionFailed') {
          // Delivered after the failed reconnect, so after any id-less data: the taint ends,
          // whatever the id (rule 0.3, delivery order).
          this.idless = false;
        }
        return;
      case 'DATA':
        // Delivered data taints the stream wherever it can still arrive, a failed one included
        // (rule 0.3); before any proof it fails the reconnect as well (rule 6.2).
        if (p === 'streaming' || p === 'resumed' || p === 'resumptionFailed') this.idless = true;
        else if (p === 'awaitingProof' || p === 'delayed') {
          this.fail();
          this.idless = true;
        }
        return;
      case 'KEEPALIVE':
        return;
      case 'IDLE_TIMEOUT':
        if (streamOpen) this.phase = 'stalled';
        return;
      case 'END':
      case 'DISCONNECT':
        if (streamOpen) this.phase = 'closed';
        else if (p === 'awaitingProof' && o.type === 'END') this.phase = 'polling';
        else if (p === 'reconnecting' || p === 'awaitingProof') this.fail();
        return;
      case 'PROOF_TIMEOUT':
        // Rule 7.1: a declared floor lets the client wait only for the proof budget.
        if (p === 'reconnecting' || p === 'awaitingProof' || p === 'polling' || p === 'delayed')
          this.fail();
        return;
      case 'RECONNECT':
        if (!canReconnect) return;
        // No cursor, no resumption; nor after id-less data with no event delivered since.
        if (o.cursor === null || this.idless) return this.fail();
        this.cursor = o.cursor ?? this.cursor;
        this.idless = false;
        this.stream = o.stream ?? this.stream;
        this.outcome = null;
        this.phase = 'reconnecting';
        return;
      case 'RESPONSE': {
        if (p !== 'reconnecting') return;
        const recreated = o.epoch !== undefined && this.epoch !== null && o.epoch !== this.epoch;
        const err = seedVerdict(this.cursor ?? Number.MAX_SAFE_INTEGER, {
          httpStatus: o.status,
          replayFloor: o.floor ?? null,
          firstEvent: null,
          sessionDurable: o.durable !== false && !recreated,
        });
        if (err === null) throw new Error('the seed accepted an empty stream');
        if (err.outcome === 'session-lost') return this.decide('session-lost', 'sessionLost');
        if (err.code !== 'unproven') return this.fail();
        if (o.head !== undefined && this.cursor !== null) {
          if (o.head < this.cursor) return this.fail();
          if (o.head === this.cursor) return this.decide('resumed', 'resumed');
        }
        // The documented deviation: a declared floor that covers the cursor lets the client
        // wait (it proves nothing); the seed's code would fail here.
        if (o.floor !== undefined) return this.decide('delayed', 'delayed');
        this.phase = 'awaitingProof';
        return;
      }
    }
  }
}
