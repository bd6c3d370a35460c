/**
 * The `mcp-tasks` translator's reading of each field, exactly (issue 28's mutation work): what a
 * `null` stands for (absent), the bounds of an HTTP status, how a value is shown in a bad-input
 * message (whole up to 60 characters, clipped after), and which error answers are a session
 * lost (HTTP 404 or 410) and which are a bad answer. Each case is one translator call, so that
 * the mutation suite (`npm run mutation:tasks`) kills a changed test or bound in milliseconds.
 */
import { describe, expect, test } from 'vitest';
import { WireFactError, type WireFact } from '../../model/bindings/binding.js';
import {
  JSONRPC_ERROR_STATUS,
  SEP_2694_RULES,
  tasksBinding,
} from '../../model/bindings/mcp-tasks.js';
import type { Observation } from '../../model/observations.js';

/** A translator of one recording, fed `facts` in order; returns what the last one came to. */
function last(...facts: WireFact[]): Observation[] {
  const t = tasksBinding(SEP_2694_RULES).translator!();
  let out: Observation[] = [];
  for (const f of facts) out = t.translate(f);
  // The notes the checker reads are own fields of the observation: compare them as plain data.
  return out.map((o) => ({ ...o }));
}

/** The one-line message a bad fact is refused with. */
function refusal(...facts: WireFact[]): string {
  try {
    last(...facts);
  } catch (e) {
    expect(e).toBeInstanceOf(WireFactError);
    return (e as Error).message;
  }
  throw new Error('the fact was not refused');
}

const open: WireFact = { type: 'tasks/stream', taskId: 't' };
const resume = (after: number): WireFact => ({ type: 'tasks/stream', taskId: 't', after });
const event = (seq: number): WireFact => ({ type: 'tasks/event', taskId: 't', seq });

describe('bad input is named, values shown briefly', () => {
  test('null is shown as null, not as an object', () => {
    expect(refusal({ type: 'tasks/stream', taskId: null })).toBe(
      'tasks/stream taskId must be a non-empty string, got null',
    );
    expect(refusal({ type: 'tasks/stream', taskId: {} })).toBe(
      'tasks/stream taskId must be a non-empty string, got an object',
    );
  });

  test('a shown value of exactly 60 characters is whole; 61 are clipped to 57 and "..."', () => {
    const sixty = 'a'.repeat(58); // shown with its quotes: 60 characters
    expect(refusal({ type: sixty })).toBe(`unknown task-stream line type "${sixty}"`);
    const sixtyOne = 'a'.repeat(59);
    expect(refusal({ type: sixtyOne })).toBe(`unknown task-stream line type "${'a'.repeat(56)}...`);
  });
});

describe('null stands for an absent field', () => {
  test('"after": null is a call without after', () => {
    expect(last({ type: 'tasks/stream', taskId: 't', after: null })).toEqual(last(open));
  });

  test('"status": null is HTTP 200 (the JSON-RPC error decides)', () => {
    const withNull = last(open, event(0), resume(0), {
      type: 'tasks/error',
      status: null,
      error: { code: -32000 },
    });
    const without = last(open, event(0), resume(0), {
      type: 'tasks/error',
      error: { code: -32000 },
    });
    expect(withNull).toEqual(without);
    expect(withNull).toEqual([
      {
        type: 'RESPONSE',
        status: JSONRPC_ERROR_STATUS,
        said: 'unexpected tasks/stream answer: JSON-RPC error -32000',
      },
    ]);
  });

  test('"error": null is no JSON-RPC error: the status alone answers', () => {
    expect(
      last(open, event(0), resume(0), { type: 'tasks/error', status: 500, error: null }),
    ).toEqual([{ type: 'RESPONSE', status: 500 }]);
    expect(refusal(open, { type: 'tasks/error', error: null })).toBe(
      'tasks/error needs a JSON-RPC "error" object or an HTTP "status" other than 200',
    );
  });

  test('"earliestSeq": null is an events_gone without earliestSeq', () => {
    const gone = (earliestSeq: unknown): WireFact => ({
      type: 'tasks/error',
      error: { code: -32010, data: { reason: 'events_gone', earliestSeq } },
    });
    const withNull = last(open, event(0), resume(0), gone(null));
    expect(withNull).toEqual(last(open, event(0), resume(0), gone(undefined)));
    expect(withNull).toEqual([
      {
        type: 'RESPONSE',
        status: JSONRPC_ERROR_STATUS,
        said: 'events_gone without earliestSeq (JSON-RPC error -32010): nothing says which events are gone, so nothing proves the resume',
      },
    ]);
  });
});

describe('HTTP statuses', () => {
  test('status 0 (an opaque answer) is a status; -1 is refused', () => {
    expect(
      last(open, event(0), resume(0), { type: 'tasks/error', status: 0, error: { code: 1 } }),
    ).toEqual([
      {
        type: 'RESPONSE',
        status: 0,
        said: 'unexpected tasks/stream answer: JSON-RPC error 1 with HTTP status 0',
      },
    ]);
    expect(refusal(open, { type: 'tasks/error', status: -1 })).toBe(
      'tasks/error status must be an HTTP status, got -1',
    );
  });

  test('a bare status answers as itself, with no words of a JSON-RPC error', () => {
    for (const status of [500, 404, 410, 302]) {
      expect(last(open, event(0), resume(0), { type: 'tasks/error', status })).toStrictEqual([
        { type: 'RESPONSE', status },
      ]);
    }
  });

  test('a JSON-RPC error under HTTP 404 or 410 is a session lost, as a bare one is', () => {
    for (const status of [404, 410]) {
      expect(
        last(open, event(0), resume(0), { type: 'tasks/error', status, error: { code: -32000 } }),
      ).toStrictEqual([{ type: 'RESPONSE', status }]);
    }
  });

  test('an events_gone that contradicts after is a bad answer under 404 and 410 too, never a session lost', () => {
    for (const status of [404, 410, 500]) {
      const out = last(open, event(0), event(1), event(2), resume(2), {
        type: 'tasks/error',
        status,
        error: { code: -32010, data: { reason: 'events_gone', earliestSeq: 3 } },
      });
      expect(out, String(status)).toEqual([
        {
          type: 'RESPONSE',
          status: status === 500 ? 500 : JSONRPC_ERROR_STATUS,
          said: `events_gone with earliestSeq 3 contradicts itself (JSON-RPC error -32010 with HTTP status ${status}): it says seq 3 and later are retained, which covers after 2 (seq 3 is the next one), so the receiver must replay, not refuse`,
        },
      ]);
    }
  });
});
