/**
 * An id-only SSE block is an event with that id and no data, like a priming event: the
 * rewriter turns it into one, the same way however the text is split (inside CRLF too), and
 * the guard judges its id.
 */
import { fc, test } from '@fast-check/vitest';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { afterEach, describe, expect } from 'vitest';
import { ChunkText, idOnlyBlocksAsPriming, SseLines } from '../../src/runtime/id-only-blocks.js';
import {
  mutantChunkText,
  mutantSseLines,
  type ChunkTextMutant,
  type SseLinesMutant,
} from '../../src/runtime-mutants/reader-mutants.js';
import { continuityGuard, type StreamResumptionError } from '../../src/runtime/index.js';
import { announceSeed, runs } from '../support/seed.js';
import { hostile, note, RESULT, sse, SSE_HEADERS, type Hostile } from './hostile.js';

const seed = announceSeed('properties/runtime/id-only-blocks.test.ts');

function events(chunks: string[], mutant?: SseLinesMutant): EventSourceMessage[] {
  const got: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (e) => got.push(e) });
  const lines = mutant ? mutantSseLines(1 << 20, mutant) : undefined;
  const rewrite = lines ? (text: string) => lines.push(text) : idOnlyBlocksAsPriming(1 << 20);
  for (const c of chunks) parser.feed(rewrite(c));
  return got;
}

describe('the rewriter', () => {
  test('an id-only block becomes a priming event; others pass unchanged', () => {
    expect(events(['id: 4\n\nid: 5\ndata: x\n\n: c\n\nid: 6\r\n\r\n'])).toEqual([
      { id: '4', event: undefined, data: '' },
      { id: '5', event: undefined, data: 'x' },
      { id: '6', event: undefined, data: '' },
    ]);
  });

  test('an id with NUL is ignored by the parser, so it is no id-only block either', () => {
    expect(events(['id: 4\0\n\n'])).toEqual([]);
  });

  test('a BOM at the very start is dropped once; a later U+FEFF is kept', () => {
    const rewrite = idOnlyBlocksAsPriming(1 << 20);
    expect(rewrite('\uFEFFid: 1\n\n')).toBe('id: 1\ndata:\n\n');
    expect(rewrite('\uFEFFdata: x\n\n')).toBe('\uFEFFdata: x\n\n');
  });

  test('the BOM check waits for the first text that is not empty', () => {
    const rewrite = idOnlyBlocksAsPriming(1 << 20);
    expect(rewrite('')).toBe('');
    expect(rewrite('\uFEFFid: 1\n\n')).toBe('id: 1\ndata:\n\n');
  });

  test('a CR at the end of a chunk is held until the next one tells CR from CRLF', () => {
    const rewrite = idOnlyBlocksAsPriming(1 << 20);
    expect(rewrite('id: 1\r')).toBe('');
    expect(rewrite('\n\r\n')).toBe('id: 1\r\ndata:\n\r\n');
    // A lone CR in the middle of a chunk ends its line at once.
    expect(rewrite('id: 2\r\rx')).toBe('id: 2\rdata:\n\r');
  });

  test('a line without a terminator is held, and refused beyond maxLineBytes', () => {
    const rewrite = idOnlyBlocksAsPriming(8);
    expect(rewrite('data: ab')).toBe('');
    expect(rewrite('\n\n')).toBe('data: ab\n\n');
    expect(() => rewrite('data: abc')).toThrow(new Error('SSE event larger than 8 bytes'));
  });

  test('a block with data, an id field with no colon, or a comment is not rewritten', () => {
    const rewrite = idOnlyBlocksAsPriming(1 << 20);
    expect(rewrite('id: 1\ndata: x\n\n')).toBe('id: 1\ndata: x\n\n');
    expect(rewrite('data: x\nid: 1\n\n')).toBe('data: x\nid: 1\n\n');
    expect(rewrite('id\n\n')).toBe('id\ndata:\n\n');
    expect(rewrite(': id\n\nidx: 1\n\n')).toBe(': id\n\nidx: 1\n\n');
    // Other fields are not data: an id with only an event name or a retry is still id-only.
    expect(rewrite('id: 5\nevent: x\nretry: 9\n\n')).toBe('id: 5\nevent: x\nretry: 9\ndata:\n\n');
    // The state is per block: data in one block does not cover an id-only block after it.
    expect(rewrite('data: y\n\nid: 2\n\n')).toBe('data: y\n\nid: 2\ndata:\n\n');
    expect(rewrite('id: 3\n\n\nid: 4\0\n\n')).toBe('id: 3\ndata:\n\n\nid: 4\0\n\n');
  });

  test('only the fields named exactly id and data count: a field that starts like one is another', () => {
    const rewrite = idOnlyBlocksAsPriming(1 << 20);
    // Not data: the block stays id-only and is rewritten.
    for (const other of ['dzzz: x', 'dat: x', 'datum: x', 'datax: 1', 'd'])
      expect(rewrite(`id: 7\n${other}\n\n`), other).toBe(`id: 7\n${other}\ndata:\n\n`);
    expect(rewrite('dzzz: x\nid: 8\n\n')).toBe('dzzz: x\nid: 8\ndata:\n\n');
    // Not an id: nothing to rewrite.
    for (const other of ['iz: 7', 'ids: 7', 'i: 7', 'i'])
      expect(rewrite(`${other}\n\n`), other).toBe(`${other}\n\n`);
    // The names alone, without a colon, are the fields with an empty value.
    expect(rewrite('id\ndata\n\n')).toBe('id\ndata\n\n');
  });

  test('only a retry field is a retry, and only it or a comment is a callback after the last block', () => {
    const read = (text: string) => {
      const lines = new SseLines(1 << 20);
      lines.push(text);
      return { retry: lines.retry, tail: lines.tailCallbacks, boundary: lines.boundary };
    };
    expect(read('retry: 5\n\n')).toEqual({ retry: true, tail: false, boundary: 10 });
    expect(read('data: 1\n\nretry: 5\n')).toEqual({ retry: true, tail: true, boundary: 9 });
    expect(read('data: 1\n\n: c\n')).toEqual({ retry: false, tail: true, boundary: 9 });
    for (const other of [
      'event: x',
      'rxtry: 5',
      'xetry: 5',
      'retro: 5',
      'retrys: 5',
      'r: 5',
      'zz: 1',
    ])
      expect(read(`data: 1\n\n${other}\n`), other).toEqual({
        retry: false,
        tail: false,
        boundary: 9,
      });
  });

  test('where the last whole block ends, and whether a callback came after it', () => {
    const read = (text: string) => {
      const lines = new SseLines(1 << 20);
      const out = lines.push(text);
      return { out, retry: lines.retry, tail: lines.tailCallbacks, boundary: lines.boundary };
    };
    // No block ends, no callback: nothing seen whole, nothing after it.
    expect(read('data: x\n')).toEqual({
      out: 'data: x\n',
      retry: false,
      tail: false,
      boundary: -1,
    });
    // A comment that starts the text, with no block end: a callback after "none".
    expect(read(': c\n')).toEqual({ out: ': c\n', retry: false, tail: true, boundary: -1 });
    // The only block end is a blank line ended by a lone CR, the last of the text: the parser
    // holds that CR (it may be half a CRLF), so no block is seen whole yet.
    expect(read('data: x\n\rX')).toEqual({
      out: 'data: x\n\r',
      retry: false,
      tail: false,
      boundary: -1,
    });
    // Ended by a CRLF, the same blank line ends the block at once.
    expect(read('data: x\r\n\r\n')).toEqual({
      out: 'data: x\r\n\r\n',
      retry: false,
      tail: false,
      boundary: 11,
    });
    // A lone CR that ends a later line (not the blank one) holds nothing back of the block.
    expect(read('data: x\n\nfoo\rX')).toEqual({
      out: 'data: x\n\nfoo\r',
      retry: false,
      tail: false,
      boundary: 9,
    });
    // After a rewritten block (`data:` added), positions are counted in the text returned.
    expect(read('id: 1\n\ndata: y\n\rX')).toEqual({
      out: 'id: 1\ndata:\n\ndata: y\n\r',
      retry: false,
      tail: false,
      boundary: 13,
    });
    expect(read('id: 1\n\n:\n\n')).toEqual({
      out: 'id: 1\ndata:\n\n:\n\n',
      retry: false,
      tail: false,
      boundary: 16,
    });
    expect(read('id: 1\n\nretry: 5\n\n')).toEqual({
      out: 'id: 1\ndata:\n\nretry: 5\n\n',
      retry: true,
      tail: false,
      boundary: 23,
    });
    expect(read('id: 1\n\n:\n')).toEqual({
      out: 'id: 1\ndata:\n\n:\n',
      retry: false,
      tail: true,
      boundary: 13,
    });
  });

  // The field names written out (isData, isId, isNamed; 2026-12-07's rerun): each letter of
  // `data` is compared, a line that only starts with `i` is no id, and a bare `retry` (no
  // colon) is a retry field.
  test('a field one letter off data, or only starting with i, is neither: the id-only block is rewritten, the other not', () => {
    const rewrite = idOnlyBlocksAsPriming(1024);
    for (const off of ['dxta', 'daxa', 'datx', 'dat'])
      expect(rewrite(`id: 3\n${off}: x\n\n`), off).toBe(`id: 3\n${off}: x\ndata:\n\n`);
    expect(idOnlyBlocksAsPriming(1024)('id: 3\ndata\n\n')).toBe('id: 3\ndata\n\n');
    for (const notId of ['ix: 5', 'i: 5', 'if: 5'])
      expect(idOnlyBlocksAsPriming(1024)(`${notId}\n\n`), notId).toBe(`${notId}\n\n`);
  });

  test('a bare `retry` line (a retry field with no value) is a retry and a callback', () => {
    const lines = new SseLines(1024);
    lines.push('data: 1\n\nretry\n');
    expect({ retry: lines.retry, tail: lines.tailCallbacks }).toEqual({ retry: true, tail: true });
    lines.push('retryx\n');
    expect(lines.retry).toBe(false);
  });

  test('a block ended by a blank line in a lone CR, with no block before it in the text, is not seen yet: boundary -1 (the first block before it, when one is)', () => {
    // (The parser holds a line ended by a lone CR: the blank line's block is not dispatched.)
    const lines = new SseLines(1024);
    lines.push('data: x\n\rX');
    expect(lines.boundary).toBe(-1);
    lines.push('\ndata: y\n\ndata: z\n\rX');
    expect(lines.boundary).toBe('X\ndata: y\n\n'.length);
  });

  const block = fc.constantFrom(
    'id: 7\n\n',
    'id: 7\r\n\r\n',
    'id:8\r\r',
    'data: é€😀\n\n',
    ': keepalive\r\n\r\n',
    'id: 9\ndata: {"a":1}\n\n',
    'retry: 10\n\n',
    'id\n\n',
    // The NUL check of an id line waits for the block's end (or the text's): ids with and
    // without NUL, alone, after data, and after one another.
    'id: 4\0\n\n',
    'id: 5\nid: 4\0\n\n',
    'id: 4\0\nid: 5\r\n\r\n',
    'id: 4\0\nevent: e\ndata: d\n\n',
    'id: 6\nevent: e\n\n',
  );
  /** The bytes of `blocks` cut at `cuts`, decoded chunk by chunk. */
  function cut(blocks: string[], cuts: number[]): string[] {
    const bytes = new TextEncoder().encode(blocks.join(''));
    const at = [...new Set(cuts.map((c) => (bytes.length ? c % bytes.length : 0)))].sort(
      (a, b) => a - b,
    );
    const decoder = new TextDecoder();
    const chunks: string[] = [];
    let from = 0;
    for (const c of [...at, bytes.length]) {
      chunks.push(decoder.decode(bytes.subarray(from, c), { stream: true }));
      from = c;
    }
    chunks.push(decoder.decode());
    return chunks;
  }
  const blocks = fc.array(block, { maxLength: 6 });
  const cuts = fc.array(fc.nat(), { maxLength: 5 });
  test.prop([blocks, cuts], {
    seed,
    numRuns: runs(200),
  })('the same events however the bytes are split (inside CRLF, inside UTF-8)', (bs, cs) => {
    expect(events(cut(bs, cs))).toEqual(events([bs.join('')]));
  });

  test('the property kills drops-pending-id (an id line cut from its block end loses its NUL check)', () => {
    const result = fc.check(
      fc.property(
        blocks,
        cuts,
        (bs, cs) =>
          JSON.stringify(events(cut(bs, cs), 'drops-pending-id')) ===
          JSON.stringify(events([bs.join('')])),
      ),
      { seed, numRuns: runs(200) },
    );
    expect(result.failed, `drops-pending-id survived (seed ${seed})`).toBe(true);
    // The case itself: the id line in one text, the blank line in the next.
    expect(events(['id: 5\n', '\n'])).toEqual([{ id: '5', event: undefined, data: '' }]);
    expect(events(['id: 5\n', '\n'], 'drops-pending-id')).toEqual([]);
  });
});

describe('the bytes become text as one TextDecoder reads them', () => {
  /** `bytes` cut at `cuts`, read chunk by chunk with ChunkText (or its mutant). */
  function read(bytes: Uint8Array, cuts: number[], mutant?: ChunkTextMutant): string {
    const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
    const text = mutant ? mutantChunkText(mutant) : new ChunkText();
    let out = '';
    let from = 0;
    for (const c of [...at, bytes.length]) {
      out += text.push(bytes.subarray(from, c));
      from = c;
    }
    return out + text.end();
  }
  const decoded = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  // Streams of ASCII SSE text and characters that are not (two, three and four bytes, a byte
  // order mark anywhere, a byte that is no UTF-8 at all), in any order.
  const piece = fc.oneof(
    fc.constantFrom('id: 1\n', 'data: {"a":1}\n\n', ': c\n\n', '\r\n', '\0'),
    fc.constantFrom('é', '€', '😀', '\uFEFF', '\uFEFFdata: x\n\n'),
    fc.string({ maxLength: 8 }),
  );
  const stream = fc
    .tuple(
      fc.array(piece, { maxLength: 8 }),
      fc.option(fc.tuple(fc.constantFrom(0x80, 0xc3, 0xe2, 0xff), fc.nat())),
    )
    .map(([ps, bad]) => {
      const bytes = new TextEncoder().encode(ps.join(''));
      if (bad === null) return bytes;
      // A byte that starts or continues no character here, anywhere in the stream.
      const at = bad[1] % (bytes.length + 1);
      const out = new Uint8Array(bytes.length + 1);
      out.set(bytes.subarray(0, at));
      out[at] = bad[0];
      out.set(bytes.subarray(at), at + 1);
      return out;
    });
  const cuts = fc.array(fc.nat(), { maxLength: 6 });
  test.prop([stream, cuts], { seed, numRuns: runs(300) })(
    'the same text as TextDecoder, however the bytes are cut',
    (bytes, cs) => {
      expect(read(bytes, cs)).toBe(decoded(bytes));
    },
  );

  test.each(['ascii-after-utf8', 'bom-mid-stream'] as const)('the property kills %s', (mutant) => {
    const result = fc.check(
      fc.property(stream, cuts, (bytes, cs) => read(bytes, cs, mutant) === decoded(bytes)),
      // More runs than the property itself: a mark after ASCII text in the same chunk is rare
      // enough that 300 runs missed it (seed 1321075465); the check is pure and cheap.
      { seed, numRuns: runs(3000) },
    );
    expect(result.failed, `${mutant} survived (seed ${seed})`).toBe(true);
  });

  test('the cases: a character cut short before ASCII, and a U+FEFF after ASCII text', () => {
    // A server's invalid UTF-8: the first byte of é, then an ASCII chunk. The decoder holds the
    // byte until the `a` shows it was cut short.
    const cut = Uint8Array.of(0xc3, 0x61);
    expect(read(cut, [1])).toBe('\uFFFDa');
    expect(read(cut, [1], 'ascii-after-utf8')).toBe('a\uFFFD');
    const bom = new TextEncoder().encode('a\uFEFFb');
    expect(read(bom, [1])).toBe('a\uFEFFb');
    expect(read(bom, [1], 'bom-mid-stream')).toBe('ab');
    // At the very start, the mark is dropped, as the decoder drops it.
    expect(read(new TextEncoder().encode('\uFEFFa'), [])).toBe('a');
  });
});

describe('the guard judges an id-only block by its id', () => {
  const running: Hostile[] = [];
  afterEach(async () => {
    for (const h of running.splice(0)) await h.close();
  });

  async function resumeWith(body: string) {
    const h = await hostile((method) =>
      method === 'POST'
        ? { status: 200, headers: SSE_HEADERS, steps: [{ write: sse(1, note(1)) }, { end: true }] }
        : { status: 200, headers: SSE_HEADERS, steps: [{ write: body }, { end: true }] },
    );
    running.push(h);
    const failures: StreamResumptionError[] = [];
    const f = continuityGuard(fetch, { onFailure: (e) => failures.push(e) });
    await (
      await f(h.url, { method: 'POST', body: '{"jsonrpc":"2.0","id":1,"method":"x"}' })
    ).text();
    const text = await f(h.url, { method: 'GET', headers: { 'last-event-id': '1' } })
      .then((r) => r.text())
      .catch(() => '');
    return { text, codes: failures.map((e) => e.code) };
  }

  test('id-only 2 proves the resume (successor), forwarded as a priming event', async () => {
    const r = await resumeWith('id: 2\n\n' + sse(3, RESULT));
    expect(r.codes).toEqual([]);
    expect(r.text).toContain('id: 2\ndata:\n\n');
  });

  test('id-only 5 is a skip', async () => {
    expect((await resumeWith('id: 5\n\n' + sse(6, RESULT))).codes).toEqual(['skip']);
  });
});
