/**
 * Reading a trace as lines, streamed with `node:readline`: memory stays constant however long
 * the trace is (each line is held only while it is checked).
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { TraceInputError } from './format.js';

/**
 * The longest trace line read, in characters (UTF-16 code units): 64 Mi. A longer line is bad
 * input. Without a cap, readline joins a line's chunks into one string until V8's string limit
 * (2^29 - 24 characters, about 512 Mi) throws a RangeError out of its data handler.
 */
export const MAX_LINE_CHARS = 64 * 1024 * 1024;

/** Where a trace comes from: a file path, or `-` for standard input. */
export type TraceSource = string;

/** Opens a trace source as a readable stream; `-` is `stdin`. */
export function openTraceSource(
  source: TraceSource,
  stdin?: NodeJS.ReadableStream,
): NodeJS.ReadableStream {
  if (source === '-') {
    if (!stdin) throw new Error('no standard input to read');
    // Decode in the stream, which flushes an incomplete UTF-8 sequence at the end as U+FFFD;
    // readline's own decoder would drop it, and a last line of broken bytes with it.
    stdin.setEncoding('utf8');
    return stdin;
  }
  return createReadStream(source, { encoding: 'utf8' });
}

/** Index of the first line break (`\n` or `\r`) in `text` at or after `from`, or -1. */
function firstBreak(text: string, from: number): number {
  const n = text.indexOf('\n', from);
  const r = text.indexOf('\r', from);
  return n < 0 || (r >= 0 && r < n) ? r : n;
}

/**
 * Measures line lengths on the chunks as they come, before readline joins them: calls
 * `tooLong(k)` when the line that is `k` lines after the last complete one readline emitted
 * (k >= 1) grows past `max` characters. Line breaks are readline's: `\n`, `\r\n`, a lone `\r`.
 * Each chunk is scanned a few times natively; only a chunk longer than `max` (a whole text
 * handed over at once) is walked line by line.
 */
function lineLengthGuard(max: number, tooLong: (k: number) => void) {
  let partial = 0; // characters of the line not yet ended
  let cr = false; // the last chunk ended with \r: a \n first in this one ends no other line
  return (chunk: string | Buffer) => {
    // A string ignores toString's argument; bytes are measured one character per byte.
    const text = (chunk as Buffer).toString('latin1');
    const from = cr && text.startsWith('\n') ? 1 : 0;
    if (text.length > 0) cr = text.endsWith('\r');
    const first = firstBreak(text, from);
    if (first < 0) {
      partial += text.length - from;
      if (partial > max) tooLong(1);
      return;
    }
    if (partial + first - from > max) return tooLong(1);
    if (text.length > max) {
      let k = 1;
      for (let at = first; ;) {
        // `\r\n` is one break; the next line starts after it.
        const start = text.startsWith('\r\n', at) ? at + 2 : at + 1;
        k++;
        const next = firstBreak(text, start);
        if ((next === -1 ? text.length : next) - start > max) return tooLong(k);
        if (next === -1) break;
        at = next;
      }
    }
    partial = text.length - 1 - Math.max(text.lastIndexOf('\n'), text.lastIndexOf('\r'));
  };
}

/**
 * Calls `onLine` for each line of `input` (without its line ending), in order. Resolves when
 * the input ends; rejects with the first error `onLine` throws (and stops reading), with the
 * stream's own error (a missing file, for instance), or with a {@link TraceInputError} for a
 * line longer than `maxLineChars` (default {@link MAX_LINE_CHARS}).
 */
export function forEachLine(
  input: NodeJS.ReadableStream,
  onLine: (line: string) => void,
  maxLineChars = MAX_LINE_CHARS,
): Promise<void> {
  return new Promise((resolve, reject) => {
    let emitted = 0;
    const guard = lineLengthGuard(maxLineChars, (k) =>
      fail(
        new TraceInputError(
          emitted + k,
          `the line is longer than ${maxLineChars} characters, the most a trace line may have`,
        ),
      ),
    );
    // Registered before readline's own listener, so a chunk is measured before it is joined.
    input.on('data', guard);
    const rl = createInterface({ input, crlfDelay: Infinity });
    let failed = false;
    const fail = (e: unknown) => {
      // Closing, destroying and rejecting again are harmless: no guard against a second call.
      failed = true;
      rl.close();
      // A file is closed; the process's standard input is left to the process.
      if (input !== process.stdin) (input as NodeJS.ReadableStream & { destroy(): void }).destroy();
      reject(e);
    };
    // readline re-emits its input's errors (a missing file, for instance).
    rl.on('error', fail);
    rl.on('line', (line) => {
      emitted++;
      if (failed) return;
      try {
        onLine(line);
      } catch (e) {
        fail(e);
      }
    });
    rl.on('close', () => {
      if (!failed) resolve();
    });
  });
}
