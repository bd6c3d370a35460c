/**
 * Reading a trace as lines, streamed with `node:readline`: memory stays constant however long
 * the trace is (each line is held only while it is checked).
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

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

/**
 * Calls `onLine` for each line of `input` (without its line ending), in order. Resolves when
 * the input ends; rejects with the first error `onLine` throws (and stops reading) or with the
 * stream's own error (a missing file, for instance).
 */
export function forEachLine(
  input: NodeJS.ReadableStream,
  onLine: (line: string) => void,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const rl = createInterface({ input, crlfDelay: Infinity });
    let failed = false;
    const fail = (e: unknown) => {
      if (failed) return;
      failed = true;
      rl.close();
      if ('destroy' in input && typeof input.destroy === 'function' && input !== process.stdin) {
        input.destroy();
      }
      reject(e);
    };
    input.on('error', fail);
    rl.on('error', fail);
    rl.on('line', (line) => {
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
