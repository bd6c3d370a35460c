/**
 * The library entry of the trace oracle: `checkTrace` reads a whole trace (any iterable of
 * lines, sync or async) and returns the full report. For traces too long to hold their report
 * in memory, drive {@link TraceChecker} directly with a sink, as the `check` command does.
 */
import { TraceChecker, type CheckOptions } from './checker.js';
import type { BreakReport, CheckReport, CursorAheadReport, ReconnectReport } from './report.js';

/** The lines of a trace's whole text: split on LF or CRLF, a last line break ending the last line. */
export function traceLines(text: string): string[] {
  const body = text.endsWith('\n') ? text.slice(0, -1) : text;
  return body === '' ? [] : body.split(/\r?\n/);
}

/**
 * Checks a v1 trace: each line one JSON observation (without its newline; a single string is
 * taken as the whole text and split into lines). Resolves to the
 * report; rejects with a `TraceInputError` (which names the line) on bad input, and with a
 * plain `Error` when `options.idPattern` does not compile or has no `seq` group.
 *
 * @category Oracle
 * @example
 * ```ts
 * import { checkTrace } from 'mcp-resumption';
 *
 * const report = await checkTrace([
 *   '{"type":"open","status":200}',
 *   '{"type":"event","id":5}',
 *   '{"type":"reconnect","cursor":5}',
 *   '{"type":"response","status":200}',
 *   '{"type":"event","id":9}',
 *   '{"type":"decision","outcome":"resumed"}',
 * ]);
 * report.reconnects[0]?.verdict; // 'unsafe-accept': events 6..8 were skipped
 * report.exitCode; // 1
 * ```
 */
export async function checkTrace(
  lines: AsyncIterable<string> | Iterable<string>,
  options: CheckOptions = {},
): Promise<CheckReport> {
  const reconnects: ReconnectReport[] = [];
  const breaks: BreakReport[] = [];
  const cursorAhead: CursorAheadReport[] = [];
  const checker = new TraceChecker(options, {
    reconnect: (r) => reconnects.push(r),
    break: (b) => breaks.push(b),
    cursorAhead: (c) => cursorAhead.push(c),
  });
  // A string is an iterable of characters: take it as the whole text of a trace instead.
  if (typeof lines === 'string') lines = traceLines(lines);
  if (Symbol.asyncIterator in lines) {
    for await (const line of lines) checker.push(line);
  } else {
    for (const line of lines) checker.push(line);
  }
  const { exitCode, ...summary } = checker.finish();
  return { reconnects, breaks, cursorAhead, summary, exitCode };
}
