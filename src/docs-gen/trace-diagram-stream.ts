/**
 * `diagram --trace`, streamed: the trace is read from its file twice, line by line, and never
 * held whole (apart from trace-diagram.ts, which the playground's page bundles for the browser:
 * this file reads files).
 */
import {
  decisionNotesByLine,
  TraceDiagramWriter,
  type TraceDiagramOptions,
} from './trace-diagram.js';
import { TraceChecker } from '../trace/checker.js';
import { forEachLine, openTraceSource } from '../trace/read.js';
import type { ReconnectReport } from '../trace/report.js';

/**
 * The diagram of the trace in file `source`, streamed: the oracle reads the file once (as
 * `check` does, line by line, keeping only its decisions' notes), then the file is read again
 * and each diagram line is written (`write`, in chunks of about 64 KiB) as it is drawn. Memory
 * is `check`'s plus the notes, never the trace or the diagram. Rejects as `check` does on bad
 * input (a `TraceInputError` naming the line).
 */
export async function streamTraceDiagram(
  source: string,
  options: TraceDiagramOptions,
  write: (chunk: string) => void,
): Promise<void> {
  const reconnects: ReconnectReport[] = [];
  const checker = new TraceChecker(options, { reconnect: (r) => reconnects.push(r) });
  await forEachLine(openTraceSource(source), (line) => checker.push(line));
  checker.finish();
  const notes = decisionNotesByLine(reconnects);
  reconnects.length = 0;
  let buffer = '';
  const writer = new TraceDiagramWriter(notes, (line) => {
    buffer += `${line}\n`;
    if (buffer.length >= 65_536) {
      write(buffer);
      buffer = '';
    }
  });
  await forEachLine(openTraceSource(source), (line) => writer.push(line));
  writer.finish();
  write(buffer);
}
