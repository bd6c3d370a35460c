/**
 * The guard's pure wire readers (src/runtime/guard-wire.ts) on their own: what they say of text
 * the guard's body reader never hands them (it filters first), so that each reader keeps its own
 * contract whoever calls it. Part of `npm run mutation:runtime`'s selection.
 */
import { describe, expect, test } from 'vitest';
import {
  eventLine,
  isEventStreamType,
  isResponseMessage,
  serialize,
} from '../../src/runtime/guard-wire.js';

describe('guard-wire readers', () => {
  test('isResponseMessage: only a JSON-RPC response with an id key written as such', () => {
    expect(isResponseMessage('{"jsonrpc":"2.0","id":1,"result":{}}')).toBe(true);
    expect(isResponseMessage('{"jsonrpc":"2.0","id":1,"error":{"code":1}}')).toBe(true);
    // No `"id"` in the text: not a response, whatever else it holds.
    expect(isResponseMessage('{"jsonrpc":"2.0","result":{}}')).toBe(false);
    expect(isResponseMessage('{"jsonrpc":"2.0","\\u0069d":1,"result":{}}')).toBe(false);
    expect(isResponseMessage('{"jsonrpc":"2.0","id":1,"method":"m","result":{}}')).toBe(false);
    expect(isResponseMessage('{"id":1')).toBe(false);
  });

  test('eventLine: `response` only when the event carries the response', () => {
    expect(eventLine(3, undefined, false)).toEqual({ type: 'event', id: 3 });
    expect(eventLine(3, 's', true)).toEqual({ type: 'event', id: 3, stream: 's', response: true });
  });

  test('isEventStreamType: no content type is no SSE', () => {
    expect(isEventStreamType(null)).toBe(false);
    expect(isEventStreamType(' Text/Event-Stream; charset=utf-8')).toBe(true);
  });

  test('serialize: an event without an id is written without an id line', () => {
    expect(serialize({ data: 'x', id: undefined, event: undefined })).toBe('data: x\n\n');
    expect(serialize({ data: 'a\nb', id: '3', event: 'note' })).toBe(
      'event: note\nid: 3\ndata: a\ndata: b\n\n',
    );
  });
});
