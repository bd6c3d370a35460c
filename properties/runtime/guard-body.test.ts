/**
 * The guarded body's own bookkeeping (src/runtime/guard-body.ts), driven through a scripted
 * `fetch` chunk by chunk: which text goes on as the server wrote it and which goes on written
 * anew (`handOn`: the unfinished block's tail, its bound, a retry the parser reports a text
 * late), the count of `id"` that lets an event skip the JSON parse (`feed`, `answerIn`), and a
 * body the application gives up (`abandoned`). Each test names the line of the body it holds;
 * the server's text here is written so that "as it came" and "written anew" differ
 * (`data:x` without a space, `id:1`, a field the parser ignores), so that a reader can tell them
 * apart. Part of the runtime's fast selection (`MCPR_MUTATION_SUITE=runtime`).
 */
import { describe, expect, test } from 'vitest';
import {
  continuityGuard,
  type ContinuityGuardOptions,
  type GuardTraceLine,
  type StreamResumptionError,
} from '../../src/runtime/index.js';
import { ev, readAll, scriptedFetch, sseResponse, wire, type Wire } from './scripted-fetch.js';

const URL_ = 'http://127.0.0.1:9/mcp';
const CALL = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x' } });
const RESULT = { jsonrpc: '2.0', id: 1, result: { content: [] } };

/** A guard whose every POST is answered by `w`, with its failures and trace collected. */
function guard(w: Wire, options: ContinuityGuardOptions = {}) {
  const { fetch: scripted } = scriptedFetch(() => sseResponse(w));
  const failures: StreamResumptionError[] = [];
  const trace: Record<string, unknown>[] = [];
  const f = continuityGuard(scripted, {
    endCalls: 'error',
    onFailure: (e) => failures.push(e),
    onTrace: (line: GuardTraceLine) => {
      const { t: _t, ...rest } = line;
      trace.push(rest);
    },
    ...options,
  });
  const post = (signal?: AbortSignal) => f(URL_, { method: 'POST', body: CALL, signal });
  return { post, failures, trace };
}

/** What a guarded POST's reader gets when the server's body comes as `chunks`, a read each. */
async function handedOn(chunks: string[], options: ContinuityGuardOptions = {}) {
  // (Each chunk is one read of the source: the guard feeds it and hands on what it accepted.)
  const w = wire(...chunks);
  w.end();
  const g = guard(w, options);
  const { text, error } = await readAll(await g.post());
  return { text, error, trace: g.trace, failures: g.failures };
}

/** The server's block `id:N` / `data:{"n":N}`, written so that "written anew" differs from it. */
function terse(n: number): string {
  return `id:${n}\ndata:${JSON.stringify({ n })}\n\n`;
}

describe('what goes on as it came, and what goes on written anew', () => {
  test('a block of a later read goes on as the server wrote it (handOn: `changed` is reset after each text)', async () => {
    const { text, error } = await handedOn([ev(1), terse(2), ev(3, RESULT)]);
    expect(error).toBeNull();
    expect(text).toBe(ev(1) + terse(2) + ev(3, RESULT));
  });

  test('a block cut across reads goes on as the server wrote it once it ends (the unfinished tail is kept)', async () => {
    // The first read ends inside the block: nothing is reported of it, its text waits.
    const { text, error } = await handedOn(['id:1\n', 'data:{"n":1}\n\n' + ev(2, RESULT)]);
    expect(error).toBeNull();
    expect(text).toBe(terse(1) + ev(2, RESULT));
  });

  test('an unfinished block of exactly maxEventBytes is kept whole; one byte more is dropped and the block written anew', async () => {
    // Lines the parser ignores (`x:`) make the block long without filling its buffer.
    const block = (length: number) => 'id:1\n' + 'x:' + 'a'.repeat(length - 8) + '\n';
    expect(block(64)).toHaveLength(64);
    const rest = 'data:{"n":1}\n\n' + ev(2, RESULT);
    const kept = await handedOn([block(64), rest], { maxEventBytes: 64 });
    expect(kept.error).toBeNull();
    expect(kept.text).toBe(block(64) + rest);
    // Over the bound the tail's text is given up: the block goes on written anew, its id kept.
    const dropped = await handedOn([block(65), rest], { maxEventBytes: 64 });
    expect(dropped.error).toBeNull();
    expect(dropped.text).toBe(ev(1) + ev(2, RESULT));
  });

  test('a retry line the parser reports only with the next read (it ended in a lone CR) still goes on clamped', async () => {
    // The parser holds a line ending in CR until the next character (a CRLF?): its `retry`
    // callback comes while the next text is fed, whose own lines hold no retry.
    const { text, error } = await handedOn(['retry: 99999999\rx', '\n\n' + ev(1, RESULT)], {
      maxRetryMs: 5_000,
    });
    expect(error).toBeNull();
    expect(text).toBe('retry: 5000\n\n' + ev(1, RESULT));
  });
});

describe('the count of `id"` that lets an event skip the JSON parse', () => {
  test('a text that starts with `id"` still counts every `id"` after it (feed: the search from 0)', async () => {
    // A field named `id"` (the parser ignores it) at the very start of the text.
    const { text, trace } = await handedOn(['id":0\n\n' + ev(1, RESULT)]);
    expect(text).toBe('id":0\n\n' + ev(1, RESULT));
    expect(trace).toContainEqual({ type: 'event', id: 1, response: true });
  });

  test('a response with a `\\u006` escape in its data is read as the response (feed: both counts add)', async () => {
    const data = '{"jsonrpc":"2.0","id":1,"result":{"t":"\\u0061"}}';
    expect(JSON.parse(data)).toMatchObject({ id: 1, result: { t: 'a' } });
    const { text, trace } = await handedOn([`id: 1\ndata: ${data}\n\n`]);
    expect(text).toBe(`id: 1\ndata: ${data}\n\n`);
    expect(trace).toContainEqual({ type: 'event', id: 1, response: true });
  });
});

describe('a body the application gives up', () => {
  test('cancelled before its response, a stream without ids fails nothing: no call waits on it', async () => {
    const w = wire(ev(null, { a: 1 }));
    const g = guard(w);
    const reader = (await g.post()).body!.getReader();
    await reader.read();
    await reader.cancel('done');
    expect(w.cancelled).toBe('done');
    expect(g.failures).toEqual([]);
    expect(g.trace.map((l) => l.type)).toEqual(['open', 'event', 'disconnect']);
  });

  test('cancelled just as a chunk came: nothing of it is judged or traced after the disconnect', async () => {
    // The source's read settles with the chunk, and the cancel runs before the body goes on
    // with it (pull: a body that ended while its read was pending stops there).
    const w = wire(ev(1));
    const g = guard(w);
    const reader = (await g.post()).body!.getReader();
    await reader.read();
    const pending = reader.read();
    await new Promise((r) => setTimeout(r, 20)); // the body waits on the source
    w.push(ev(2));
    const cancelled = reader.cancel('bye').catch(() => {});
    expect((await pending).done).toBe(true);
    await cancelled;
    await new Promise((r) => setTimeout(r, 20)); // the body's read has gone on by now
    expect(g.trace).toEqual([
      { type: 'open', status: 200 },
      { type: 'event', id: 1 },
      { type: 'disconnect' },
    ]);
  });

  test('aborted by the caller before its response, a stream without ids fails nothing', async () => {
    const w = wire(ev(null, { a: 1 }));
    const g = guard(w);
    const caller = new AbortController();
    const reader = (await g.post(caller.signal)).body!.getReader();
    await reader.read();
    const reading = reader.read().then(
      (r) => r,
      (e: unknown) => e,
    );
    caller.abort(new Error('closed'));
    await reading;
    for (let i = 0; i < 250 && w.cancelled === undefined; i++)
      await new Promise((r) => setTimeout(r, 20));
    expect((w.cancelled as Error).message).toBe('closed');
    expect(g.failures).toEqual([]);
    expect(g.trace.map((l) => l.type)).toEqual(['open', 'event', 'end']);
  });
});

describe('a response to another request', () => {
  test('is withheld: its id goes on alone (an id-only event), and without an id nothing goes on', async () => {
    const other = { ...RESULT, id: 2 };
    const { text, error, failures } = await handedOn([
      ev(1) + ev(2, other) + ev(null, other) + ev(3, RESULT),
    ]);
    expect(error).toBeNull();
    expect(text).toBe(ev(1) + 'id: 2\ndata: \n\n' + ev(3, RESULT));
    expect(failures).toEqual([]);
  });
});

describe('an id-less response (a server that sends no ids)', () => {
  test('is traced as the response and ends the call: the stream owes nothing when it ends', async () => {
    const { text, error, trace, failures } = await handedOn([ev(null, { a: 1 }), ev(null, RESULT)]);
    expect(error).toBeNull();
    expect(text).toBe(ev(null, { a: 1 }) + ev(null, RESULT));
    expect(trace).toEqual([
      { type: 'open', status: 200 },
      { type: 'event' },
      { type: 'event', response: true },
      { type: 'end' },
    ]);
    expect(failures).toEqual([]);
  });

  test('id-less data written anew (beside a clamped retry) is handed on', async () => {
    const { text, error } = await handedOn([
      ev(null, { a: 1 }) + 'retry: 0\n\n' + ev(null, RESULT),
    ]);
    expect(error).toBeNull();
    expect(text).toBe(ev(null, { a: 1 }) + 'retry: 250\n\n' + ev(null, RESULT));
  });
});
