/**
 * The `mcp-tasks` binding word for word: every rewrite of a machine reason into task words
 * (`taskPhrase`), the translator's copy and key (the world branches on them), and the one-line
 * message of each bad task line. Exact strings, so that a changed word is a failing test.
 */
import { describe, expect, test } from 'vitest';
import {
  JSONRPC_ERROR_STATUS,
  mcpTasks,
  SEP_2694_RULES,
  taskPhrase,
  tasksBinding,
} from '../../model/bindings/mcp-tasks.js';
import { WireFactError, type WireFact } from '../../model/bindings/binding.js';
import type { ReasonCode } from '../../model/outcomes.js';

describe('taskPhrase: each machine reason in task words', () => {
  const CASES: [ReasonCode, string, string][] = [
    [
      'successor',
      "first event 6 is the cursor's successor",
      'first new seq 6 is the successor of the cursor (seq 5)',
    ],
    [
      'successor',
      "first event 9 taken for the cursor's successor 6 without proof",
      'first seq 9 taken for after + 1 = 6 without proof',
    ],
    [
      'no-response',
      'no response to the reconnect before the time allowed to prove the resume ran out',
      'no answer to tasks/stream (no event, result, error or keepalive) before the proof budget ran out',
    ],
    [
      'no-response',
      'no response to the reconnect before the idle timeout',
      'no answer to tasks/stream (no event, result, error or keepalive) before the idle timeout',
    ],
    [
      'no-response',
      'no response to the reconnect before the connection broke',
      'no answer to tasks/stream (no event, result, error or keepalive) before the connection broke',
    ],
    [
      'no-response',
      'no response to the reconnect before the server ended the stream',
      'no answer to tasks/stream (no event, result, error or keepalive) before the receiver closed the stream',
    ],
    [
      'no-response',
      'no response to the reconnect before the next reconnect',
      'no answer to tasks/stream (no event, result, error or keepalive) before the next tasks/stream call',
    ],
    [
      'session-gone',
      'session lost: status=410; re-initialize required',
      'session lost: HTTP status 410 without an events_gone body; re-initialize required',
    ],
    [
      'bad-status',
      'unexpected reconnect status=500',
      'unexpected tasks/stream answer: HTTP status 500',
    ],
    [
      'cursor-below-floor',
      'cursor 5 below replay floor 7; events 6..6 are lost',
      'after 5 below earliestSeq 7 (events_gone); seq 6 is lost',
    ],
    [
      'cursor-below-floor',
      'cursor 5 below replay floor 100; events 6..99 are lost',
      'after 5 below earliestSeq 100 (events_gone); seq 6..99 are lost',
    ],
    [
      'skip',
      'replay gap: expected event id 6, got 8; silent skip of 2 event(s)',
      'replay gap: expected seq 6, got 8; silent skip of 2 event(s)',
    ],
    [
      'rewind',
      'replay rewind: expected event id 6, got 0 (at or below cursor 5: a reset counter or a duplicate)',
      'seq went back: expected seq 6, got 0 (at or below seq 5) out of sequence order on one answer; SEP-2694: servers MUST deliver events in sequence order',
    ],
    [
      'cross-stream',
      'event of stream t2 replayed on a resumption of stream t1',
      'event of task t2 on the stream of task t1',
    ],
    [
      'unproven',
      'no event proved continuity from cursor 5 before the time allowed to prove the resume ran out; a 200 proves nothing',
      'no new event proved continuity after seq 5 before the proof budget ran out; an open tasks/stream proves nothing, and neither does a duplicate or a keepalive',
    ],
    [
      'unproven',
      'no event proved continuity from cursor -1 before the server ended the stream; a 200 proves nothing',
      "no new event proved continuity after the task's start (seq 0 expected) before the receiver closed the stream; an open tasks/stream proves nothing, and neither does a duplicate or a keepalive",
    ],
    [
      'break',
      'non-contiguous stream: expected 4, got 6',
      'non-contiguous task stream: expected seq 4, got 6',
    ],
    [
      'break',
      'non-contiguous stream: expected 4, got 0',
      'seq went back inside one live stream: expected seq 4, got 0; SEP-2694: servers MUST deliver events in sequence order',
    ],
    [
      'cursor-dropped',
      'reconnect without Last-Event-ID although cursor 3 was received: the server cannot replay',
      'tasks/stream without after although seq 3 was received: the receiver starts again at its earliest retained event, and no events_gone can tell a gap',
    ],
    [
      'no-cursor',
      'reconnect without Last-Event-ID: nothing names where the replay must start',
      'tasks/stream without after: nothing names where the replay must start',
    ],
  ];

  test.each(CASES)('%s: %s', (code, machine, words) => {
    expect(taskPhrase(code, machine)).toBe(words);
    expect(mcpTasks.phrase?.(code, machine)).toBe(words);
    // Only the whole sentence is reworded: a text around it is some other reason.
    expect(taskPhrase(code, `x ${machine}`)).toBe(`x ${machine}`);
    // (Two patterns end in a free text, a task id or a rest, which takes any suffix.)
    if (code !== 'cross-stream' && code !== 'no-cursor') {
      expect(taskPhrase(code, `${machine} x`)).toBe(`${machine} x`);
    }
  });

  const LONG: [ReasonCode, string, string][] = [
    [
      'successor',
      "first event 16 is the cursor's successor",
      'first new seq 16 is the successor of the cursor (seq 15)',
    ],
    [
      'successor',
      "first event 19 taken for the cursor's successor 16 without proof",
      'first seq 19 taken for after + 1 = 16 without proof',
    ],
    [
      'cursor-below-floor',
      'cursor 15 below replay floor 100; events 16..99 are lost',
      'after 15 below earliestSeq 100 (events_gone); seq 16..99 are lost',
    ],
    [
      'rewind',
      'replay rewind: expected event id 16, got 10 (at or below cursor 15: a reset counter or a duplicate)',
      'seq went back: expected seq 16, got 10 (at or below seq 15) out of sequence order on one answer; SEP-2694: servers MUST deliver events in sequence order',
    ],
    [
      'break',
      'non-contiguous stream: expected 14, got 16',
      'non-contiguous task stream: expected seq 14, got 16',
    ],
    [
      'break',
      'non-contiguous stream: expected 14, got 14',
      'non-contiguous task stream: expected seq 14, got 14',
    ],
    [
      'cursor-dropped',
      'reconnect without Last-Event-ID although cursor 13 was received: the server cannot replay',
      'tasks/stream without after although seq 13 was received: the receiver starts again at its earliest retained event, and no events_gone can tell a gap',
    ],
  ];

  test.each(LONG)('%s, with numbers of two digits: %s', (code, machine, words) => {
    expect(taskPhrase(code, machine)).toBe(words);
  });

  test('a text no rewrite matches, or a code without rewrites, is kept as it is', () => {
    expect(taskPhrase('successor', "first event is the cursor's successor")).toBe(
      "first event is the cursor's successor",
    );
    expect(taskPhrase('not-durable', 'session not durable')).toBe('session not durable');
    expect(
      taskPhrase(
        'skip',
        'prefix replay gap: expected event id 6, got 8; silent skip of 2 event(s)',
      ),
    ).toBe('prefix replay gap: expected event id 6, got 8; silent skip of 2 event(s)');
  });
});

describe('the translator', () => {
  const fresh = () => mcpTasks.translator!();

  test('a clone goes on alone, with the same key; a fact changes the key', () => {
    const t = fresh();
    const k0 = t.key!();
    t.translate({ type: 'tasks/stream', taskId: 'a' });
    const k1 = t.key!();
    expect(k1).not.toBe(k0);
    const c = t.clone!();
    expect(c.key!()).toBe(k1);
    c.translate({ type: 'tasks/event', taskId: 'a', seq: 0 });
    expect(c.key!()).not.toBe(k1);
    expect(t.key!()).toBe(k1);
    // Each part of the state is in the key and in the clone.
    t.translate({ type: 'tasks/event', taskId: 'a', seq: 0 });
    expect(t.clone!().key!()).toBe(t.key!());
    const keys = new Set<string>();
    const u = fresh();
    for (const f of [
      { type: 'tasks/stream', taskId: 'a' },
      { type: 'tasks/event', taskId: 'a', seq: 0 },
      { type: 'tasks/event', taskId: 'a', seq: 1 },
      { type: 'tasks/stream', taskId: 'a', after: 1 },
      {
        type: 'tasks/error',
        error: { code: -32010, data: { reason: 'events_gone', earliestSeq: 5 } },
      },
      { type: 'tasks/stream', taskId: 'a', after: 4 },
    ]) {
      u.translate(f);
      keys.add(u.key!());
      const copy = u.clone!();
      expect(copy.key!()).toBe(u.key!());
      expect(copy.translate({ type: 'tasks/event', taskId: 'a', seq: 5 })).toEqual(
        u.clone!().translate({ type: 'tasks/event', taskId: 'a', seq: 5 }),
      );
    }
    expect(keys.size).toBe(6);
  });

  test('what each fact becomes, field by field', () => {
    const t = fresh();
    expect(t.translate({ type: 'tasks/stream', taskId: 'a' })).toEqual([
      { type: 'OPEN', status: 200, stream: 'a', cursor: -1, after: null },
    ]);
    expect(t.translate({ type: 'keepalive' })).toEqual([{ type: 'KEEPALIVE' }]);
    expect(t.translate({ type: 'tasks/event', taskId: 'a', seq: 0 })).toEqual([
      { type: 'EVENT', id: 0, stream: 'a' },
    ]);
    expect(t.translate({ type: 'tasks/stream', taskId: 'a' })).toEqual([
      { type: 'RECONNECT', cursor: 0, stream: 'a', after: null },
    ]);
    expect(t.translate({ type: 'keepalive' })).toEqual([
      { type: 'RESPONSE', status: 200 },
      { type: 'KEEPALIVE' },
    ]);
    expect(t.translate({ type: 'tasks/event', taskId: 'a', seq: 0 })).toEqual([
      { type: 'KEEPALIVE' },
    ]);
    expect(t.translate({ type: 'tasks/stream', taskId: 'a', after: 0 })).toEqual([
      { type: 'RECONNECT', cursor: 0, stream: 'a', after: 0 },
    ]);
    expect(t.translate({ type: 'tasks/error', error: { code: 404 } })).toEqual([
      {
        type: 'RESPONSE',
        status: JSONRPC_ERROR_STATUS,
        said: 'unexpected tasks/stream answer: JSON-RPC error 404',
      },
    ]);
    expect(t.translate({ type: 'tasks/stream', taskId: 'a', after: 0 })).toEqual([
      { type: 'RECONNECT', cursor: 0, stream: 'a', after: 0 },
    ]);
    expect(
      t.translate({ type: 'tasks/error', status: 503, error: { code: -32603, message: 'x' } }),
    ).toEqual([
      {
        type: 'RESPONSE',
        status: 503,
        said: 'unexpected tasks/stream answer: JSON-RPC error -32603 with HTTP status 503',
      },
    ]);
    t.translate({ type: 'tasks/stream', taskId: 'a', after: 0 });
    expect(
      t.translate({
        type: 'tasks/error',
        status: 410,
        error: { code: -32010, data: { reason: 'events_gone', earliestSeq: 1 } },
      }),
    ).toEqual([
      {
        type: 'RESPONSE',
        status: JSONRPC_ERROR_STATUS,
        said: 'events_gone with earliestSeq 1 contradicts itself (JSON-RPC error -32010 with HTTP status 410): it says seq 1 and later are retained, which covers after 0 (seq 1 is the next one), so the receiver must replay, not refuse',
      },
    ]);
    t.translate({ type: 'tasks/stream', taskId: 'a', after: 0 });
    expect(
      t.translate({
        type: 'tasks/error',
        error: { code: -32010, data: { reason: 'events_gone' } },
      }),
    ).toEqual([
      {
        type: 'RESPONSE',
        status: JSONRPC_ERROR_STATUS,
        said: 'events_gone without earliestSeq (JSON-RPC error -32010): nothing says which events are gone, so nothing proves the resume',
      },
    ]);
    t.translate({ type: 'tasks/stream', taskId: 'a', after: 0 });
    expect(t.translate({ type: 'tasks/error', status: 404 })).toEqual([
      { type: 'RESPONSE', status: 404 },
    ]);
    t.translate({ type: 'tasks/stream', taskId: 'a', after: 0 });
    expect(t.translate({ type: 'tasks/error', status: 410, error: { code: -32603 } })).toEqual([
      { type: 'RESPONSE', status: 410 },
    ]);
    t.translate({ type: 'tasks/stream', taskId: 'a', after: 0 });
    expect(
      t.translate({
        type: 'tasks/error',
        error: { code: -32010, data: { reason: 'events_gone', earliestSeq: 7 } },
      }),
    ).toEqual([{ type: 'RESPONSE', status: 200, floor: 7, told: 6 }]);
    // After events_gone, a call without after is judged from earliestSeq - 1.
    expect(t.translate({ type: 'tasks/stream', taskId: 'a' })).toEqual([
      { type: 'RECONNECT', cursor: 6, stream: 'a', after: null },
    ]);
    expect(t.translate({ type: 'tasks/result' })).toEqual([
      { type: 'RESPONSE', status: 200 },
      { type: 'END' },
    ]);
    // An error answering no resume ends the stream.
    expect(t.translate({ type: 'tasks/error', error: { code: -32602 } })).toEqual([
      { type: 'END' },
    ]);
  });

  test('the rule variants: a dropped cursor, an open, a duplicate as proof or as an event', () => {
    const run = (rules: Partial<typeof SEP_2694_RULES>, facts: WireFact[]) => {
      const t = tasksBinding({ ...SEP_2694_RULES, ...rules }).translator!();
      return facts.map((f) => t.translate(f));
    };
    const seen: WireFact[] = [
      { type: 'tasks/stream', taskId: 'a' },
      { type: 'tasks/event', taskId: 'a', seq: 0 },
      { type: 'tasks/event', taskId: 'a', seq: 1 },
    ];
    expect(
      run({ missingAfter: 'reconnect' }, [...seen, { type: 'tasks/stream', taskId: 'a' }]).at(-1),
    ).toEqual([{ type: 'RECONNECT', cursor: null, stream: 'a', after: null }]);
    expect(
      run({ missingAfter: 'open' }, [...seen, { type: 'tasks/stream', taskId: 'a' }]).at(-1),
    ).toEqual([{ type: 'OPEN', status: 200, stream: 'a', cursor: -1, after: null }]);
    const dup: WireFact[] = [
      ...seen,
      { type: 'tasks/stream', taskId: 'a', after: 1 },
      { type: 'tasks/event', taskId: 'a', seq: 1 },
    ];
    expect(run({ duplicate: 'proof' }, dup).at(-1)).toEqual([
      { type: 'RESPONSE', status: 200 },
      { type: 'EVENT', id: 2, stream: 'a' },
    ]);
    expect(run({ duplicate: 'forward' }, dup).at(-1)).toEqual([
      { type: 'RESPONSE', status: 200 },
      { type: 'EVENT', id: 1, stream: 'a' },
    ]);
    expect(run({}, dup).at(-1)).toEqual([{ type: 'RESPONSE', status: 200 }, { type: 'KEEPALIVE' }]);
    // Another task's event is never a duplicate, and moves nothing.
    expect(
      run({}, [
        ...seen,
        { type: 'tasks/event', taskId: 'b', seq: 0 },
        { type: 'tasks/event', taskId: 'a', seq: 1 },
      ]).slice(-2),
    ).toEqual([[{ type: 'EVENT', id: 0, stream: 'b' }], [{ type: 'KEEPALIVE' }]]);
    // A seq going back is passed on, and does not move the cursor back.
    expect(
      run({}, [
        ...seen,
        { type: 'tasks/event', taskId: 'a', seq: 0 },
        { type: 'tasks/event', taskId: 'a', seq: 1 },
        { type: 'tasks/event', taskId: 'a', seq: 2 },
      ]).slice(-3),
    ).toEqual([
      [{ type: 'EVENT', id: 0, stream: 'a' }],
      [{ type: 'KEEPALIVE' }],
      [{ type: 'EVENT', id: 2, stream: 'a' }],
    ]);
  });

  test('each bad field is named in one line', () => {
    const bad = (f: WireFact, message: string) => {
      const t = fresh();
      t.translate({ type: 'tasks/stream', taskId: 'a' });
      expect(() => t.translate(f)).toThrow(WireFactError);
      expect(
        () => fresh().translate({ type: 'tasks/stream', taskId: 'a' }) && t.translate(f),
      ).toThrow(message);
    };
    bad(
      { type: 'tasks/stream', taskId: '' },
      'tasks/stream taskId must be a non-empty string, got ""',
    );
    bad(
      { type: 'tasks/stream', taskId: 7 },
      'tasks/stream taskId must be a non-empty string, got 7',
    );
    bad(
      { type: 'tasks/stream', taskId: 'a', after: -1 },
      'tasks/stream after must be a non-negative integer, got -1',
    );
    bad(
      { type: 'tasks/stream', taskId: 'a', after: 1.5 },
      'tasks/stream after must be a non-negative integer, got 1.5',
    );
    bad(
      { type: 'tasks/stream', taskId: 'a', after: '3' },
      'tasks/stream after must be a non-negative integer, got "3"',
    );
    bad(
      { type: 'tasks/stream', taskId: 'a', after: 2 ** 53 },
      'tasks/stream after must be a non-negative integer, got 9007199254740992',
    );
    bad(
      { type: 'tasks/event', taskId: 'a', seq: [1] },
      'tasks/event seq must be a non-negative integer, got an array',
    );
    bad(
      { type: 'tasks/event', taskId: 'a', seq: { n: 1 } },
      'tasks/event seq must be a non-negative integer, got an object',
    );
    bad(
      { type: 'tasks/event', taskId: 'a' },
      'tasks/event seq must be a non-negative integer, got nothing',
    );
    bad(
      { type: 'tasks/event', taskId: 'x'.repeat(80), seq: -1 },
      'tasks/event seq must be a non-negative integer, got -1',
    );
    bad(
      { type: 'tasks/event', taskId: 'a', seq: 'y'.repeat(80) },
      `tasks/event seq must be a non-negative integer, got "${'y'.repeat(56)}...`,
    );
    bad({ type: 'tasks/error', status: 'x' }, 'tasks/error status must be an HTTP status, got "x"');
    bad({ type: 'tasks/error', status: -1 }, 'tasks/error status must be an HTTP status, got -1');
    bad({ type: 'tasks/error', status: 1.5 }, 'tasks/error status must be an HTTP status, got 1.5');
    bad(
      { type: 'tasks/error' },
      'tasks/error needs a JSON-RPC "error" object or an HTTP "status" other than 200',
    );
    bad(
      { type: 'tasks/error', status: 200 },
      'tasks/error needs a JSON-RPC "error" object or an HTTP "status" other than 200',
    );
    bad({ type: 'tasks/error', error: 'boom' }, 'tasks/error error must be an object, got "boom"');
    bad({ type: 'tasks/error', error: [1] }, 'tasks/error error must be an object, got an array');
    bad(
      { type: 'tasks/error', error: { code: 'x' } },
      'tasks/error error.code must be an integer, got "x"',
    );
    bad(
      { type: 'tasks/error', error: { code: 1.5 } },
      'tasks/error error.code must be an integer, got 1.5',
    );
    bad(
      { type: 'tasks/error', error: { code: 1, data: 5 } },
      'tasks/error error.data must be an object, got 5',
    );
    bad(
      { type: 'tasks/error', error: { code: 1, data: { reason: 'events_gone', earliestSeq: -2 } } },
      'tasks/error error.data.earliestSeq must be a non-negative integer, got -2',
    );
    bad({ type: 'tasks/nope' }, 'unknown task-stream line type "tasks/nope"');
    bad(
      { type: 'tasks/stream', taskId: 'b' },
      'tasks/stream for a second task "b": a trace holds the calls of one task (this one\'s is "a"); split it into one trace per task, each with its task\'s tasks/stream calls and their answers',
    );
  });

  test('an error without data, and one whose data is null, is no events_gone', () => {
    for (const error of [
      { code: -32010 },
      { code: -32010, data: null },
      { code: -32010, data: { reason: 'other' } },
    ]) {
      const t = fresh();
      t.translate({ type: 'tasks/stream', taskId: 'a' });
      t.translate({ type: 'tasks/event', taskId: 'a', seq: 0 });
      t.translate({ type: 'tasks/stream', taskId: 'a', after: 0 });
      expect(t.translate({ type: 'tasks/error', error })).toEqual([
        {
          type: 'RESPONSE',
          status: JSONRPC_ERROR_STATUS,
          said: 'unexpected tasks/stream answer: JSON-RPC error -32010',
        },
      ]);
    }
  });

  test('the binding names its vocabulary and its commit', () => {
    expect(mcpTasks.name).toBe('mcp-tasks');
    expect(mcpTasks.lineTypes).toEqual([
      'tasks/stream',
      'tasks/event',
      'tasks/result',
      'tasks/error',
      'keepalive',
    ]);
    expect(mcpTasks.nativeLines).toEqual(['idle-timeout', 'disconnect', 'decision']);
    expect(mcpTasks.summary).toBe(
      'MCP task event streams, tasks/stream with after (SEP-2694 draft at e695539c)',
    );
  });
});
