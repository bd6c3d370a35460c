/**
 * The guard hands on the server's own text for the blocks it accepted (guard-body.ts,
 * `handOn`), and holds back the block still being read. Whatever the line terminators (LF,
 * CRLF, lone CR, a CRLF split across chunks), comments, retries, id-only blocks and cuts:
 * - every piece the reader gets ends at a block's end: no part of an event reaches it before
 *   the guard accepted the whole event;
 * - the reader gets exactly the events the guard accepted, up to the first gap, and nothing of
 *   the event after it.
 */
import { fc, test } from '@fast-check/vitest';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { describe, expect } from 'vitest';
import { idOnlyBlocksAsPriming } from '../../src/runtime/id-only-blocks.js';
import { continuityGuard, type ContinuityGuardOptions } from '../../src/runtime/index.js';
import { mutantGuard } from '../../src/runtime-mutants/guard-mutants.js';
import { announceSeed, runs } from '../support/seed.js';
import { scriptedFetch, sseResponse, wire } from './scripted-fetch.js';

const seed = announceSeed('properties/runtime/raw-forwarding.test.ts');

const CALL = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x' } });

function parse(text: string): EventSourceMessage[] {
  const got: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (e) => got.push(e) });
  parser.feed(idOnlyBlocksAsPriming(1 << 20)(text));
  return got;
}

/**
 * `true` when `text` ends where a block ends: a block appended after it is read alone (a
 * partial event before it would lend it its id, its data or its event name).
 */
function endsAtBlock(text: string): boolean {
  return JSON.stringify(parse(text + 'data: z\n\n').at(-1)) === JSON.stringify({ data: 'z' });
}

/** Reads a guarded body chunk by chunk: what it got, and whether each chunk ended at a block. */
async function read(res: Response): Promise<{ text: string; whole: boolean; error: unknown }> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let whole = true;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      whole &&= endsAtBlock(text) && !text.endsWith('\r');
    }
    return { text, whole, error: null };
  } catch (error) {
    return { text, whole, error };
  }
}

/** The guard, or its mutant that hands on the block still being read. */
function build(mutant: boolean): (f: typeof fetch, o: ContinuityGuardOptions) => typeof fetch {
  return mutant ? (f, o) => mutantGuard(f, o, 'hands-on-unfinished-blocks') : continuityGuard;
}

/** Runs `chunks` as the POST stream of a guarded call. */
async function through(chunks: (string | Uint8Array)[], mutant = false) {
  const w = wire();
  for (const chunk of chunks) w.push(chunk);
  w.end();
  const { fetch: f } = scriptedFetch(() => sseResponse(w));
  const guarded = build(mutant)(f, { endCalls: 'error' });
  return read(await guarded('http://127.0.0.1:9/mcp', { method: 'POST', body: CALL }));
}

const eol = fc.constantFrom('\n', '\r\n', '\r');
/** One SSE block: an event (maybe id-only, maybe with other lines) or a comment. */
const block = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      data: fc.array(fc.constantFrom('x', '{"a":1}', 'é€😀', ''), { maxLength: 2 }),
      event: fc.boolean(),
      comment: fc.boolean(),
      retry: fc.constantFrom(null, 1, 3000),
      unknown: fc.boolean(),
      eol,
    }),
  },
  { weight: 1, arbitrary: fc.record({ keepalive: fc.constant(true), eol }) },
);
type Block = typeof block extends fc.Arbitrary<infer B> ? B : never;

/** The text of `blocks`, ids from 1 up, one skipped at the `gap`-th event (if any). */
function textOf(blocks: Block[], gap: number): string {
  let id = 0;
  let text = '';
  let n = 0;
  for (const b of blocks) {
    if ('keepalive' in b) {
      text += `: ka${b.eol}${b.eol}`;
      continue;
    }
    id += n++ === gap ? 2 : 1;
    const lines = [`id: ${id}`];
    if (b.comment) lines.push(': note');
    if (b.event) lines.push('event: message');
    if (b.unknown) lines.push('x-field: y');
    if (b.retry !== null) lines.push(`retry: ${b.retry}`);
    for (const d of b.data) lines.push(`data: ${d}`);
    text += lines.map((l) => l + b.eol).join('') + b.eol;
  }
  return text;
}

/** The bytes of `text`, cut at the `cuts` (positions modulo its length): inside CRLF, inside UTF-8. */
function cut(text: string, cuts: number[]): Uint8Array[] {
  const bytes = new TextEncoder().encode(text);
  const at = [...new Set(cuts.map((c) => (bytes.length ? c % bytes.length : 0)))].sort(
    (a, b) => a - b,
  );
  const chunks: Uint8Array[] = [];
  let from = 0;
  for (const c of [...at, bytes.length]) {
    chunks.push(bytes.subarray(from, c));
    from = c;
  }
  return chunks;
}

/** The property: see the module comment (`mutant`: run on the mutant instead). */
async function handsOnAccepted(blocks: Block[], gap: number, cuts: number[], mutant = false) {
  const text = textOf(blocks, gap);
  const got = await through(cut(text, cuts), mutant);
  const all = parse(text);
  const firstBad = all.findIndex((e, i) => i > 0 && Number(e.id) !== Number(all[i - 1]!.id) + 1);
  const accepted = firstBad < 0 ? all : all.slice(0, firstBad);
  expect(got.whole).toBe(true);
  expect(parse(got.text)).toEqual(accepted);
  // (A call's stream that ends with no event id at all fails too: nothing can resume it.)
  expect(got.error !== null).toBe(firstBad >= 0 || accepted.length === 0);
}

const blocks = fc.array(block, { minLength: 1, maxLength: 8 });
const gaps = fc.integer({ min: -1, max: 8 });
const cuts = fc.array(fc.nat(), { maxLength: 8 });

describe('the server text of accepted blocks, and only of them', () => {
  test.prop([blocks, gaps, cuts], { seed, numRuns: runs(300) })(
    'every piece ends at a block; the events are the accepted ones',
    (b, g, c) => handsOnAccepted(b, g, c),
  );

  test('the property kills a guard that hands on the block still being read', async () => {
    const result = await fc.check(
      fc.asyncProperty(blocks, gaps, cuts, (b, g, c) => handsOnAccepted(b, g, c, true)),
      { seed, numRuns: runs(300) },
    );
    expect(result.failed).toBe(true);
    const lf = await through(['id: 1\ndata: a\n\nid: 3\nda', 'ta: secret\n\n'], true);
    expect(lf.text).toContain('id: 3');
  });
});

describe('hostile cuts', () => {
  for (const [name, nl] of [
    ['LF', '\n'],
    ['CRLF', '\r\n'],
    ['CR', '\r'],
  ] as const) {
    test(`${name}: the event after a gap, cut in its data, never reaches the reader`, async () => {
      // (A lone CR at the very end of a stream may be half a CRLF: the event after it is what
      // confirms the blank line, for the guard's parser as for the reader's.)
      const got = await through([
        `id: 1${nl}data: a${nl}${nl}id: 3${nl}da`,
        `ta: secret${nl}${nl}`,
        `id: 4${nl}data: c${nl}${nl}`,
      ]);
      expect(parse(got.text).map((e) => e.id)).toEqual(['1']);
      expect(got.text).not.toContain('id: 3');
      expect(got.text).not.toContain('secret');
      expect(got.error).not.toBeNull();
    });
  }

  test('a lone CR at the end of a chunk: its block waits for the next chunk; none goes on ending in one', async () => {
    // The parser holds a last lone CR (it may be half a CRLF): the event it ends is judged
    // only with the next chunk, and is not handed on before.
    const got = await through(['id: 1\rdata: a\r\rid: 3\rdata: b\r\r', 'id: 4\rdata: c\r\r']);
    expect(parse(got.text).map((e) => e.id)).toEqual(['1']);
    expect(got.text).not.toContain('b');
    // A reader's parser holds a last lone CR (half a CRLF?): event 1 would wait for a byte
    // that never comes. The guard writes such a text anew.
    expect(got.text.endsWith('\r')).toBe(false);
  });

  test('a retry is handed on clamped, written anew; the events around it as they came', async () => {
    const got = await through(['id: 1\ndata: a\n\nretry: 1\n\nid: 2\ndata: b\n\n']);
    expect(got.text).not.toContain('retry: 1\n');
    expect(got.text).toMatch(/retry: \d{3,}\n/);
    expect(parse(got.text).map((e) => e.data)).toEqual(['a', 'b']);
  });

  test('a comment inside an unfinished block goes on at once; the block then comes written anew', async () => {
    const w = wire('id: 1\ndata: a\n\nid: 2\n: ka\n');
    const { fetch: f } = scriptedFetch(() => sseResponse(w));
    const res = await continuityGuard(f)('http://127.0.0.1:9/mcp', { method: 'POST', body: CALL });
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toBe('id: 1\ndata: a\n\n:ka\n\n');
    w.push('data: b\n\n');
    w.end();
    const second = new TextDecoder().decode((await reader.read()).value);
    expect(second).toBe('id: 2\ndata: b\n\n');
  });
});
