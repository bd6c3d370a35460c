/**
 * The guard's pure wire readers (src/runtime/guard-wire.ts) on their own: what they say of text
 * the guard's body reader never hands them (it filters first), so that each reader keeps its own
 * contract whoever calls it. Part of `npm run mutation:runtime`'s selection.
 */
import { fc, test as prop } from '@fast-check/vitest';
import {
  isJSONRPCErrorResponse,
  isJSONRPCResultResponse,
  JSONRPCMessageSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, test } from 'vitest';
import {
  answers,
  eventLine,
  isEventStreamType,
  isMessageEvent,
  mayHoldIdKey,
  responseIn,
  serialize,
  utf8,
} from '../../src/runtime/guard-wire.js';
import { announceSeed, runs } from '../support/seed.js';

const seed = announceSeed('properties/runtime/guard-wire.test.ts');

/** What SDK 1.32.2's transport makes of an event's data: a result, an error, or no response. */
function sdkReads(data: string): 'result' | 'error' | null {
  let message: unknown;
  try {
    message = JSONRPCMessageSchema.parse(JSON.parse(data));
  } catch {
    return null;
  }
  if (isJSONRPCResultResponse(message)) return 'result';
  if (isJSONRPCErrorResponse(message)) return 'error';
  return null;
}

/** Messages near a response: each key may be there, missing, or of the wrong type. */
const messageText = fc
  .record(
    {
      jsonrpc: fc.constantFrom('2.0', '1.0', 2),
      id: fc.oneof(fc.integer({ min: -3, max: 3 }), fc.constantFrom('7', 'x', null, 1.5, true)),
      result: fc.oneof(
        fc.constant({}),
        fc.constant({ content: [] }),
        fc.constant({ _meta: 3 }),
        fc.constant([]),
        fc.constant(null),
        fc.constant('text'),
      ),
      error: fc.oneof(
        fc.constant({ code: -1, message: 'no' }),
        fc.constant({ code: 1.5, message: 'no' }),
        fc.constant({ code: -1 }),
        fc.constant({ code: -1, message: 'no', data: { x: 1 } }),
        fc.constant('boom'),
      ),
      method: fc.constantFrom('m', 5),
      extra: fc.constant(1),
    },
    { requiredKeys: [] },
  )
  .chain((m) =>
    fc.boolean().map((escaped) => {
      const text = JSON.stringify(m);
      // The key `id` written with an escape, as JSON allows.
      return escaped ? text.replace('"id":', '"\\u0069d":') : text;
    }),
  );

describe('guard-wire readers', () => {
  prop.prop([messageText], { seed, numRuns: runs(400) })(
    'responseIn reads a response exactly as the SDK client does (escaped keys included)',
    (text) => {
      expect(responseIn(text)?.kind ?? null).toBe(sdkReads(text));
    },
  );

  test('the property kills the old reader (any object with "id" and result or error, no method)', () => {
    // The reader before issue 37 (R3-7, R3-8): a text pre-check for `"id"`, then keys only.
    const old = (data: string): 'result' | 'error' | null => {
      if (!data.includes('"id"')) return null;
      let m: unknown;
      try {
        m = JSON.parse(data);
      } catch {
        return null;
      }
      if (typeof m !== 'object' || m === null || !('id' in m) || 'method' in m) return null;
      return 'result' in m ? 'result' : 'error' in m ? 'error' : null;
    };
    const result = fc.check(
      fc.property(messageText, (text) => (old(text) ?? null) === sdkReads(text)),
      { seed, numRuns: runs(400) },
    );
    expect(result.failed, `the old reader survived ${result.numRuns} runs (seed ${seed})`).toBe(
      true,
    );
  });

  test('responseIn: the id as written, or undefined for an error response without one', () => {
    expect(responseIn('{"jsonrpc":"2.0","\\u0069d":1,"result":{}}')).toEqual({
      kind: 'result',
      id: 1,
    });
    expect(responseIn('{"jsonrpc":"2.0","error":{"code":1,"message":"m"}}')).toEqual({
      kind: 'error',
      id: undefined,
    });
    expect(responseIn('[{"jsonrpc":"2.0","id":1,"result":{}}]')).toBeNull();
    expect(responseIn('{"id":1')).toBeNull();
  });

  test('mayHoldIdKey never misses the key id, however it is written', () => {
    for (const key of ['"id"', '"\\u0069d"', '"i\\u0064"', '"\\u0069\\u0064"']) {
      const text = `{"jsonrpc":"2.0",${key}:1,"result":{}}`;
      expect(Object.keys(JSON.parse(text) as object)).toContain('id');
      expect(mayHoldIdKey(text), text).toBe(true);
    }
    expect(mayHoldIdKey('{"jsonrpc":"2.0","method":"n","params":{"paid":1}}')).toBe(false);
  });

  test('answers: the request id itself, or what the SDK takes for it (Number(id))', () => {
    expect(answers(5, 5)).toBe(true);
    expect(answers('5', 5)).toBe(true);
    expect(answers('req-a', 'req-a')).toBe(true);
    expect(answers(999, 5)).toBe(false);
    expect(answers(undefined, 5)).toBe(false);
    expect(answers('x', 'y')).toBe(false);
    expect(answers(0, null)).toBe(false);
  });

  test('isMessageEvent: no event type, or message, is what the SDK reads', () => {
    expect(isMessageEvent(undefined)).toBe(true);
    expect(isMessageEvent('')).toBe(true);
    expect(isMessageEvent('message')).toBe(true);
    expect(isMessageEvent('other')).toBe(false);
  });

  test('eventLine: `response` only when the event carries the response', () => {
    expect(eventLine(3, undefined, false)).toEqual({ type: 'event', id: 3 });
    expect(eventLine(3, 's', true)).toEqual({ type: 'event', id: 3, stream: 's', response: true });
  });

  test('isEventStreamType: no content type is no SSE', () => {
    expect(isEventStreamType(null)).toBe(false);
    expect(isEventStreamType(' Text/Event-Stream; charset=utf-8')).toBe(true);
  });

  // Text as the guard hands it on: mostly ASCII, sometimes not (lone surrogates included).
  const handedOn = fc.oneof(
    fc.string({ unit: 'binary-ascii', maxLength: 40 }),
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.string({ maxLength: 40 }),
  );
  const encoder = new TextEncoder();

  // The parts the guard hands on at once (a held block start and the text after it, or one).
  const partsHandedOn = fc.array(handedOn, { minLength: 1, maxLength: 3 });

  prop.prop([partsHandedOn], { seed, numRuns: runs(1000) })(
    'utf8 gives exactly the bytes TextEncoder.encode gives the joined parts (its ASCII shortcut included)',
    (parts) => {
      expect([...utf8(encoder, parts)]).toEqual([...encoder.encode(parts.join(''))]);
    },
  );

  test('the property kills a shortcut that bounds only the whole text, not each part', () => {
    // Each part written from its offset to the end of the array: a part that is not ASCII
    // fits in the room of the parts after it, and passes the check.
    const unbounded = (parts: string[]): Uint8Array => {
      const bytes = new Uint8Array(parts.join('').length);
      let at = 0;
      for (const part of parts) {
        if (encoder.encodeInto(part, bytes.subarray(at)).read !== part.length)
          return encoder.encode(parts.join(''));
        at += part.length;
      }
      return bytes;
    };
    const result = fc.check(
      fc.property(partsHandedOn, (parts) => {
        const want = encoder.encode(parts.join(''));
        const got = unbounded(parts);
        return got.length === want.length && got.every((b, i) => b === want[i]);
      }),
      { seed, numRuns: runs(1000) },
    );
    expect(result.failed, `the unbounded shortcut survived (seed ${seed})`).toBe(true);
  });

  test('the property kills a shortcut that trusts the one-byte array without its check', () => {
    const trusting = (text: string): Uint8Array => {
      const bytes = new Uint8Array(text.length);
      encoder.encodeInto(text, bytes);
      return bytes;
    };
    const result = fc.check(
      fc.property(handedOn, (text) => {
        const want = encoder.encode(text);
        const got = trusting(text);
        return got.length === want.length && got.every((b, i) => b === want[i]);
      }),
      { seed, numRuns: runs(1000) },
    );
    expect(result.failed, `the trusting shortcut survived (seed ${seed})`).toBe(true);
  });

  test('serialize: an event without an id is written without an id line', () => {
    expect(serialize({ data: 'x', id: undefined, event: undefined })).toBe('data: x\n\n');
    expect(serialize({ data: 'a\nb', id: '3', event: 'note' })).toBe(
      'event: note\nid: 3\ndata: a\ndata: b\n\n',
    );
  });
});
