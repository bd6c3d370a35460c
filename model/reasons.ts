/**
 * Reasons in words. The texts follow the seed's error messages where the seed has one, with
 * the rewind correction (an id at or below the cursor is a rewind, not a negative skip).
 */
import type { ClientContext } from './context.js';
import type { Observation } from './observations.js';
import type { Reason, ReasonCode } from './outcomes.js';

/**
 * The moment an observation marks, in words a reader of a report knows (the machine's event
 * names, such as `PROOF_TIMEOUT`, stay out of the texts).
 */
export function momentOf(type: Observation['type']): string {
  return MOMENTS[type] ?? `the next ${type.toLowerCase()}`;
}

/** The moments with words of their own; any other observation is "the next" one. */
const MOMENTS: Partial<Record<Observation['type'], string>> = {
  PROOF_TIMEOUT: 'the time allowed to prove the resume ran out',
  IDLE_TIMEOUT: 'the idle timeout',
  DISCONNECT: 'the connection broke',
  END: 'the server ended the stream',
  RECONNECT: 'the next reconnect',
  OPEN: 'a new stream opened',
};

/**
 * A regex source matching exactly the texts {@link momentOf} gives (for bindings that reword),
 * built from the same table so the two cannot drift apart.
 */
export const MOMENT_SOURCE = `(${[
  ...Object.values(MOMENTS).map((m) => m.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')),
  'the next [a-z_]+',
].join('|')})`;

function cursorText(ctx: ClientContext): string {
  return ctx.cursor === null ? 'none' : String(ctx.cursor);
}

/** Builds the reason for a decision taken in context `ctx` on observation `ev`. */
export function explain(code: ReasonCode, ctx: ClientContext, ev: Observation): Reason {
  const c = ctx.cursor;
  switch (code) {
    case 'successor': {
      // The text names the event that was accepted, so that a mutant that accepts any first
      // event says what it did ("130, taken for 42") instead of the model's sentence.
      if (ev.type !== 'EVENT' || c === null)
        return { code, text: "first event is the cursor's successor" };
      if (ev.id === c + 1) return { code, text: `first event ${ev.id} is the cursor's successor` };
      return {
        code,
        text: `first event ${ev.id} taken for the cursor's successor ${c + 1} without proof`,
      };
    }
    case 'floor-covers': {
      const floor = ev.type === 'RESPONSE' ? ev.floor : undefined;
      // Only a RESPONSE can declare a floor: a mutant that reaches delayed on anything else (a
      // keepalive) or on an answer without a floor is told as what it did.
      if (floor === undefined)
        return {
          code,
          text: `no replay floor declared, yet ${ev.type} taken as one covering cursor ${cursorText(ctx)}; waiting without proof`,
        };
      return {
        code,
        text: `declared replay floor ${floor} covers cursor ${cursorText(ctx)}; silence is delay`,
      };
    }
    case 'no-response':
      return { code, text: `no response to the reconnect before ${momentOf(ev.type)}` };
    case 'session-gone':
      return {
        code,
        text: `session lost: status=${ev.type === 'RESPONSE' ? ev.status : '?'}; re-initialize required`,
      };
    case 'bad-status':
      return {
        code,
        text: `unexpected reconnect status=${ev.type === 'RESPONSE' ? ev.status : '?'}`,
      };
    case 'not-durable':
      return {
        code,
        text: 'session not durable across reconnect; implicit re-creation cannot honor Last-Event-ID',
      };
    case 'epoch-changed':
      return {
        code,
        text: `session epoch changed from ${ctx.epoch} to ${ev.type === 'RESPONSE' ? ev.epoch : '?'}: implicit re-creation`,
      };
    case 'cursor-below-floor': {
      const f = ev.type === 'RESPONSE' && ev.floor !== undefined ? ev.floor : NaN;
      return {
        code,
        text: `cursor ${cursorText(ctx)} below replay floor ${f}; events ${(c ?? 0) + 1}..${f - 1} are lost`,
      };
    }
    case 'head-behind': {
      const h = ev.type === 'RESPONSE' && ev.head !== undefined ? ev.head : NaN;
      return {
        code,
        text: `stated head ${h} is below cursor ${cursorText(ctx)}: events the client was given are not in the server's log (a reset counter or a re-created log)`,
      };
    }
    case 'caught-up': {
      const h = ev.type === 'RESPONSE' ? ev.head : undefined;
      // A mutant that takes anything else for caught up is told as what it did.
      if (h === undefined || c === null || h !== c)
        return {
          code,
          text: `stated head ${h ?? 'none'} taken as caught up at cursor ${cursorText(ctx)} without proof${h !== undefined && c !== null && h > c ? `: events ${c + 1}..${h} are owed` : ''}`,
        };
      return {
        code,
        text: `stated head ${h} is the cursor: caught up, nothing is owed; the next event must be ${c + 1}`,
      };
    }
    case 'skip': {
      const id = ev.type === 'EVENT' ? ev.id : NaN;
      const expected = (c ?? 0) + 1;
      return {
        code,
        text: `replay gap: expected event id ${expected}, got ${id}; silent skip of ${id - expected} event(s)`,
      };
    }
    case 'rewind': {
      const id = ev.type === 'EVENT' ? ev.id : NaN;
      return {
        code,
        text: `replay rewind: expected event id ${(c ?? 0) + 1}, got ${id} (at or below cursor ${cursorText(ctx)}: a reset counter or a duplicate)`,
      };
    }
    case 'cross-stream':
      return {
        code,
        text: `event of stream ${ev.type === 'EVENT' ? ev.stream : '?'} replayed on a resumption of stream ${ctx.stream}`,
      };
    case 'unproven':
      // Only `delayed` holds a floor: it covered the cursor, and the budget ran out waiting.
      if (ctx.floor !== null)
        return {
          code,
          text: `declared replay floor ${ctx.floor} covers cursor ${cursorText(ctx)}, but no event came before ${momentOf(ev.type)}: delayed past the proof budget`,
        };
      return {
        code,
        text: `no event proved continuity from cursor ${cursorText(ctx)} before ${momentOf(ev.type)}; a 200 proves nothing`,
      };
    case 'unproven-data':
      return {
        code,
        text: `data without an id arrived before any event proved continuity from cursor ${cursorText(ctx)}: it cannot be placed after the cursor`,
      };
    case 'break': {
      const id = ev.type === 'EVENT' ? ev.id : NaN;
      return {
        code,
        text: `non-contiguous stream: expected ${(c ?? 0) + 1}, got ${id}`,
      };
    }
    case 'cursor-dropped':
      return {
        code,
        text: `reconnect without Last-Event-ID although cursor ${cursorText(ctx)} was received: the server cannot replay`,
      };
    case 'no-cursor':
      return {
        code,
        text: 'reconnect without Last-Event-ID: nothing names where the replay must start, so nothing can prove it',
      };
    case 'idless-data':
      return {
        code,
        text: `data without an id was delivered after cursor ${cursorText(ctx)}: no Last-Event-ID can name it, so no replay can be proven`,
      };
  }
}
