/**
 * The guard looks for the call's response only in text that could hold one (guard-body.ts,
 * `feed` and `carriesResponse`): it counts `id"` in the text it feeds the parser, and an event's
 * data is parsed as JSON only while that count says a `"id"` may be waiting. The count must
 * never miss a response, however the JSON is spaced (`"id" : 1`, a tab before the colon) and
 * however the body is cut (inside a line, inside a UTF-8 sequence): the response completes the
 * stream (it is freed), and a notification that only mentions `"id"` does not. A pre-check
 * that counts the narrower `"id":` (`response-needs-id-colon`) is caught.
 */
import { fc, test } from '@fast-check/vitest';
import { describe, expect, test as plain } from 'vitest';
import { continuityGuard, inspectGuard } from '../../src/runtime/index.js';
import { mutantGuard } from '../../src/runtime-mutants/guard-mutants.js';
import { announceSeed, runs } from '../support/seed.js';
import { readAll, scriptedFetch, sseResponse, wire } from './scripted-fetch.js';

const seed = announceSeed('properties/runtime/response-precheck.test.ts');

const CALL = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x' } });

/** JSON text of `value` with the given spacing before and after each colon of a key. */
function spaced(value: unknown, before: string, after: string): string {
  return JSON.stringify(value).replace(/":/g, `"${before}:${after}`);
}

const space = fc.constantFrom('', ' ', '\t', '  ');
const response = fc.record({
  // The call's own id (request 1), as a number or as the string the SDK takes for it.
  id: fc.constantFrom(1, '1'),
  outcome: fc.constantFrom('result', 'error'),
  /** The key `id` written with a JSON escape (`"\u0069d"`), as JSON.parse reads it (R3-8). */
  escaped: fc.boolean(),
});
/** Notifications before the response, some mentioning `"id"` (none is a response). */
const notification = fc.record({
  mentionsId: fc.boolean(),
  text: fc.constantFrom('x', 'é€😀', '"id"', 'paid'),
});
const body = fc
  .record({
    before: fc.array(notification, { maxLength: 4 }),
    response,
    space: fc.tuple(space, space),
    /** Cut points, as fractions of the body's bytes. */
    cuts: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 6 }),
    /** The body is the response (`true`), or it ends before it (the call stays owed). */
    responds: fc.boolean(),
  })
  .map(({ before, response: r, space: [b, a], cuts, responds }) => {
    // (A first event with an id: a stream that ends without its response then stays owed.)
    let text = 'id: 1\ndata: {}\n\n';
    let id = 2;
    for (const n of before) {
      const params = n.mentionsId ? { id: 1, result: n.text } : { text: n.text };
      text += `id: ${id++}\ndata: ${spaced({ jsonrpc: '2.0', method: 'n', params }, b, a)}\n\n`;
    }
    const answer =
      r.outcome === 'result'
        ? { jsonrpc: '2.0', id: r.id, result: {} }
        : { jsonrpc: '2.0', id: r.id, error: { code: -1, message: 'no' } };
    const answerText = spaced(answer, b, a);
    if (responds)
      text += `id: ${id}\ndata: ${r.escaped ? answerText.replace('"id"', '"\\u0069d"') : answerText}\n\n`;
    const bytes = new TextEncoder().encode(text);
    const at = [...new Set(cuts.map((c) => Math.floor(c * bytes.length)))].sort((x, y) => x - y);
    const chunks: Uint8Array[] = [];
    let from = 0;
    for (const cut of [...at, bytes.length]) {
      if (cut > from) chunks.push(bytes.slice(from, cut));
      from = cut;
    }
    return { chunks, responds };
  });

/** Streams the guard still follows after reading `chunks` as a call's POST stream. */
async function held(chunks: Uint8Array[], mutant: boolean): Promise<number> {
  const w = wire();
  for (const chunk of chunks) w.push(chunk);
  w.end();
  const { fetch: f } = scriptedFetch(() => sseResponse(w));
  const options = { endCalls: 'error' } as const;
  const guarded = mutant
    ? mutantGuard(f, options, 'response-needs-id-colon')
    : continuityGuard(f, options);
  const { error } = await readAll(
    await guarded('http://127.0.0.1:9/mcp', { method: 'POST', body: CALL }),
  );
  expect(error).toBeNull();
  return inspectGuard(guarded)!.streams;
}

/** The claim: the response frees the stream; a body without it leaves the stream owed. */
async function holds(chunks: Uint8Array[], responds: boolean, mutant = false): Promise<boolean> {
  return (await held(chunks, mutant)) === (responds ? 0 : 1);
}

describe('the response pre-check never misses a response', () => {
  test.prop([body], { seed, numRuns: runs(300) })(
    'however the JSON is spaced and the body cut, a response completes the stream and nothing else does',
    async ({ chunks, responds }) => {
      expect(await holds(chunks, responds)).toBe(true);
    },
  );

  plain('the property kills response-needs-id-colon', async () => {
    const result = await fc.check(
      fc.asyncProperty(body, ({ chunks, responds }) => holds(chunks, responds, true)),
      { seed, numRuns: runs(300), endOnFailure: true },
    );
    expect(
      result.failed,
      `response-needs-id-colon survived ${result.numRuns} runs (seed ${seed})`,
    ).toBe(true);
  });

  plain('a response spaced as `"id" :` is the case it misses', async () => {
    const text = `id: 1\ndata: ${spaced({ jsonrpc: '2.0', id: 1, result: {} }, ' ', ' ')}\n\n`;
    const chunks = [new TextEncoder().encode(text)];
    expect(await held(chunks, false)).toBe(0);
    expect(await held(chunks, true)).toBe(1);
  });
});
