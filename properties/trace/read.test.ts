/**
 * Reading a trace as lines (src/trace/read.ts) on hostile input: a line longer than the cap is
 * bad input naming its line, measured on the chunks before readline joins them (issue 19 item
 * 13: a line past V8's string limit used to crash readline with a RangeError). The cap is a
 * parameter here, so no test allocates the real 64 Mi characters but the one that checks the
 * command end to end.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { TraceInputError } from '../../src/trace/format.js';
import { forEachLine, MAX_LINE_CHARS, openTraceSource } from '../../src/trace/read.js';

/** Reads `chunks` with cap `max`: the lines read, or the error's line and message. */
async function read(chunks: string[], max: number) {
  const lines: string[] = [];
  try {
    await forEachLine(Readable.from(chunks), (l) => lines.push(l), max);
    return { lines };
  } catch (e) {
    expect(e).toBeInstanceOf(TraceInputError);
    return { lines, line: (e as TraceInputError).line, message: (e as Error).message };
  }
}

describe('forEachLine: the line length cap', () => {
  test('a line of exactly the cap is read; one character more is bad input', async () => {
    expect(await read(['12345\n', 'abc\n'], 5)).toEqual({ lines: ['12345', 'abc'] });
    const r = await read(['12345\n', 'abcdef\n'], 5);
    expect(r.line).toBe(2);
    expect(r.message).toBe(
      'line 2: the line is longer than 5 characters, the most a trace line may have',
    );
  });

  test('measured across chunks, with lines read before it and no line break yet', async () => {
    expect((await read(['a\nb\nxx', 'xx', 'xx'], 5)).line).toBe(3);
    expect((await read(['a\nb\nxx', 'xx', 'x\n'], 5)).lines).toEqual(['a', 'b', 'xxxxx']);
    expect((await read(['a\nb\nxx', 'xx', 'xx\n'], 5)).line).toBe(3);
  });

  test('line breaks as readline counts them: \\r\\n (also split across chunks) and a lone \\r', async () => {
    expect((await read(['a\r', '\nb\r\nc\rdddddd\n'], 5)).line).toBe(4);
    expect((await read(['a\r', '\nb\r\nc\rddddd\n'], 5)).lines).toEqual(['a', 'b', 'c', 'ddddd']);
  });

  test('a chunk longer than the cap is walked line by line', async () => {
    expect((await read(['ab\r\ncd\nefghij\nk'], 5)).line).toBe(3);
    expect((await read(['ab\r\ncd\nefghi\nklmnop'], 5)).line).toBe(4);
    expect((await read(['abcdef\nk'], 5)).line).toBe(1);
    expect((await read(['ab\r\ncd\ref\ngh\nij\n'], 5)).lines).toEqual([
      'ab',
      'cd',
      'ef',
      'gh',
      'ij',
    ]);
  });

  test('\r before \n, \n first, \r first, and lines that only fit one by one', async () => {
    expect((await read(['ab\rcdefgh\n'], 5)).line).toBe(2);
    expect((await read(['\nabcdef\n'], 5)).line).toBe(2);
    expect((await read(['\rabcdefg\n'], 5)).line).toBe(2);
    expect((await read(['abc\nde\n'], 5)).lines).toEqual(['abc', 'de']);
    expect((await read(['abc', 'de'], 5)).lines).toEqual(['abcde']);
  });

  test('\r\n split across chunks, across an empty chunk too', async () => {
    expect((await read(['ab\r', 'cdefgh\n'], 5)).line).toBe(2);
    expect((await read(['ab\r', '', '\ncdefgh'], 5)).line).toBe(2);
    expect((await read(['ab\r', '\ncdef'], 5)).lines).toEqual(['ab', 'cdef']);
    expect((await read(['ab\r', '\ncdefg\n'], 5)).lines).toEqual(['ab', 'cdefg']);
  });

  test('a stream of bytes is measured in bytes', async () => {
    const lines: string[] = [];
    const bytes = Readable.from([Buffer.from('\u00e9\u00e9\u00e9\n')]);
    const err = await forEachLine(bytes, (l) => lines.push(l), 5).catch((e: unknown) => e);
    expect((err as TraceInputError).line).toBe(1);
    const fits = Readable.from([Buffer.from('\u00e9\u00e9\n')]);
    await forEachLine(fits, (l) => lines.push(l), 5);
    expect(lines).toEqual(['\u00e9\u00e9']);
  });

  test('after a failure no more lines are handed over, and the input is destroyed', async () => {
    const seen: string[] = [];
    const input = Readable.from(
      (function* endless() {
        for (;;) yield 'a\nb\nc\n';
      })(),
    );
    const err = await forEachLine(input, (l) => {
      seen.push(l);
      throw new Error(`no ${l}`);
    }).catch((e: unknown) => e);
    expect((err as Error).message).toBe('no a');
    expect(seen).toEqual(['a']);
    expect(input.destroyed).toBe(true);
  });

  test('the first break is the earliest, \n or \r; a \r ending a chunk joins a \n starting the next', async () => {
    expect((await read(['abcd\nefgh\rxx'], 5)).lines).toEqual(['abcd', 'efgh', 'xx']);
    expect((await read(['abc\n', '\nabcdef'], 5)).line).toBe(3);
  });

  test('a file and standard input are decoded in the stream: a broken last byte is U+FFFD', async () => {
    const dir = fileURLToPath(new URL('../../reports/read-test/', import.meta.url));
    mkdirSync(dir, { recursive: true });
    const bytes = Buffer.concat([Buffer.from('{"type":"open"}\n'), Buffer.from([0xe2])]);
    writeFileSync(`${dir}broken.jsonl`, bytes);
    const lines: string[] = [];
    await forEachLine(openTraceSource(`${dir}broken.jsonl`), (l) => lines.push(l));
    await forEachLine(openTraceSource('-', Readable.from([bytes])), (l) => lines.push(l));
    expect(lines).toEqual(['{"type":"open"}', '\ufffd', '{"type":"open"}', '\ufffd']);
  });

  test('- needs a standard input', () => {
    expect(() => openTraceSource('-')).toThrow(new Error('no standard input to read'));
  });

  test('the real cap is 64 Mi characters', () => {
    expect(MAX_LINE_CHARS).toBe(64 * 1024 * 1024);
  });
});

describe('check on a line over the cap (issue 19 item 13)', () => {
  test('exit 2 with one line naming the line, not a RangeError stack', async () => {
    const mib = 'x'.repeat(1024 * 1024);
    async function* trace() {
      yield '{"type":"open"}\n';
      for (let i = 0; i <= 64; i++) yield mib;
    }
    const { main } = await import('../../src/cli.js');
    let out = '';
    let err = '';
    const code = await main(['check', '-'], {
      out: (t) => (out += t),
      err: (t) => (err += t),
      stdin: Readable.from(trace()),
    });
    expect(code).toBe(2);
    expect(out).toBe('');
    expect(err).toBe(
      `check: <stdin>: line 2: the line is longer than ${MAX_LINE_CHARS} characters, the most a trace line may have\n`,
    );
  }, 60_000);
});
