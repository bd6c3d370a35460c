/**
 * A recorded trace, under any binding, as a Mermaid `sequenceDiagram` between the client and
 * the server: each line an arrow or a note, runs of consecutive events folded into one arrow,
 * and, where the oracle decides a reconnect, a note with its outcome, its reason and the
 * verdict on what the implementation decided. `diagram --trace` prints it, the primer's
 * diagrams per binding are generated with it (`diagram --write docs/primer.md`), and the
 * playground's trace panel draws it.
 *
 * The trace is judged by `checkTrace` first, so bad input is reported exactly as `check`
 * reports it (a `TraceInputError` naming the line), and a diagram is only ever drawn of a
 * trace the oracle read.
 */
import { mermaidText } from '../../model/world/sequence-diagram.js';
import { checkTrace, traceLines } from '../trace/check.js';
import type { CheckOptions } from '../trace/checker.js';
import type { CheckReport, ReconnectReport } from '../trace/report.js';

/** Options: the binding, as `check --binding` takes it. */
export type TraceDiagramOptions = Pick<CheckOptions, 'binding' | 'proofBudget'>;

type Line = Readonly<Record<string, unknown>>;

const num = (v: unknown): string => (typeof v === 'number' ? String(v) : JSON.stringify(v));

const toServer = (text: string) => `  C->>S: ${mermaidText(text)}`;
const toClient = (text: string) => `  S-->>C: ${mermaidText(text)}`;
const noteClient = (text: string) => `  Note over C: ${mermaidText(text)}`;
const noteBoth = (text: string) => `  Note over C,S: ${mermaidText(text)}`;

/** An event's id as a number for folding, or `null` when it does not fold (opaque, id-less). */
function seqOf(l: Line): number | null {
  const id = l['type'] === 'tasks/event' ? l['seq'] : l['id'];
  if (typeof id === 'number') return id;
  if (typeof id === 'string' && /^\d{1,15}$/.test(id)) return Number(id);
  return null;
}

/** The stream (SSE `stream`, task `taskId`) an event names, if any. */
function streamOf(l: Line): string | undefined {
  const s = l['type'] === 'tasks/event' ? l['taskId'] : l['stream'];
  return typeof s === 'string' ? s : undefined;
}

/** What an error answer of a task stream says, briefly. */
function taskError(l: Line): string {
  const status = typeof l['status'] === 'number' ? `HTTP ${l['status']}` : '';
  const error = l['error'];
  if (typeof error !== 'object' || error === null) return `error, ${status}`;
  const e = error as Record<string, unknown>;
  const data = (typeof e['data'] === 'object' && e['data'] !== null ? e['data'] : {}) as Record<
    string,
    unknown
  >;
  const body =
    data['reason'] === 'events_gone'
      ? `events_gone, earliestSeq ${num(data['earliestSeq'])}`
      : `error ${num(e['code'])}`;
  return status === '' ? body : `${body} (${status})`;
}

/** One line of the trace (not an event: those fold), as the diagram's lines. */
function lineArrows(l: Line): string[] {
  switch (l['type']) {
    case 'binding':
      return [noteBoth(`binding ${String(l['name'])}`)];
    case 'open':
      return [toServer('request that opens the stream'), toClient(`${num(l['status'])}, SSE`)];
    case 'keepalive':
      return [toClient(': keepalive (a comment)')];
    case 'idle-timeout':
      return [noteClient('nothing arrived for too long: the client gives up on the stream')];
    case 'disconnect':
      return [noteBoth('the connection breaks')];
    case 'end':
      return [toClient('the stream ends')];
    case 'reconnect':
      return [
        toServer(
          l['cursor'] === null
            ? 'GET without Last-Event-ID'
            : `GET, Last-Event-ID ${num(l['cursor'])}${typeof l['stream'] === 'string' ? ` (stream ${l['stream']})` : ''}`,
        ),
      ];
    case 'response': {
      const floor = l['floor'] === undefined ? '' : `, replay floor ${num(l['floor'])}`;
      return [toClient(`${num(l['status'])}${floor}`)];
    }
    case 'decision':
      return [noteClient(`the implementation decides: ${String(l['outcome'])}`)];
    case 'tasks/stream':
      return [
        toServer(
          `tasks/stream ${String(l['taskId'])}${l['after'] === undefined || l['after'] === null ? ', no after' : `, after ${num(l['after'])}`}`,
        ),
      ];
    case 'tasks/result':
      return [toClient('result: the stream closes')];
    case 'tasks/error':
      return [toClient(taskError(l))];
    default:
      return [];
  }
}

/** A run of events folded into one arrow. */
interface EventRun {
  kind: 'sse' | 'task';
  first: number | null;
  last: number | null;
  stream: string | undefined;
  count: number;
}

function runArrow(r: EventRun): string {
  const word = r.kind === 'task' ? 'seq' : 'id';
  const ids =
    r.first === null
      ? r.kind === 'task'
        ? 'event'
        : 'data without an id'
      : r.count === 1
        ? `${word} ${r.first}`
        : `${word} ${r.first} .. ${r.last}`;
  const label = r.kind === 'task' ? `event ${ids.replace(/^event$/, '')}`.trim() : ids;
  return toClient(r.stream === undefined ? label : `${label} (${r.stream})`);
}

/** The note the oracle's decision of `r` adds. */
function decisionNotes(r: ReconnectReport): string[] {
  const rule = r.rule === null ? '' : ` (rule ${r.rule}, ${r.code})`;
  // The report's reason is the verdict in words, then the machine's reason after a colon.
  const colon = r.reason.indexOf(': ');
  const why = colon < 0 ? r.reason : r.reason.slice(colon + 2);
  return [noteClient(`oracle: ${r.expected}${rule}, ${why}`)];
}

/**
 * The verdict note of `r`, when the implementation was wrong, and the line it follows: the
 * implementation's decision, or the oracle's if that comes later. A verdict is drawn after
 * the decision it judges, never before it (issue 32, C7).
 */
function verdictNote(r: ReconnectReport): { at: number; note: string } | null {
  if (r.verdict === 'ok' || r.verdict === 'unchecked') return null;
  const at = Math.max(r.decidedAt ?? r.line, r.decisionLine ?? 0);
  return { at, note: noteClient(`verdict on the implementation: ${r.verdict}`) };
}

/**
 * The notes of the oracle's decisions, by the line they go after: an episode of polls is
 * judged once, at its last reconnect, so it gets one note, not one per poll. Only the notes'
 * text is kept (a streamed diagram holds this map, not the reports).
 */
export function decisionNotesByLine(reconnects: Iterable<ReconnectReport>): Map<number, string[]> {
  const all = [...reconnects];
  const lastPoll = new Map<number, number>();
  for (const r of all)
    if (r.episode !== undefined)
      lastPoll.set(r.episode.first, Math.max(lastPoll.get(r.episode.first) ?? 0, r.line));
  const byLine = new Map<number, string[]>();
  // A verdict is drawn after the decision it judges, never before it (issue 32, C7): after
  // every decision note of its line.
  const verdicts = new Map<number, string[]>();
  for (const r of all) {
    if (r.episode !== undefined && lastPoll.get(r.episode.first) !== r.line) continue;
    const at = r.decidedAt ?? r.line;
    byLine.set(at, [...(byLine.get(at) ?? []), ...decisionNotes(r)]);
    const v = verdictNote(r);
    if (v !== null) verdicts.set(v.at, [...(verdicts.get(v.at) ?? []), v.note]);
  }
  for (const [at, notes] of verdicts) byLine.set(at, [...(byLine.get(at) ?? []), ...notes]);
  return byLine;
}

/**
 * Draws a trace line by line: `push` each line (in order, numbered from 1), then `finish`;
 * every diagram line goes to `emit` as soon as it is known (a run of events when it ends).
 */
export class TraceDiagramWriter {
  private n = 0;
  private run: EventRun | null = null;

  constructor(
    private readonly notes: ReadonlyMap<number, string[]>,
    private readonly emit: (line: string) => void,
  ) {
    emit('sequenceDiagram');
    emit('  participant C as client');
    emit('  participant S as server');
  }

  private flush(): void {
    if (this.run !== null) this.emit(runArrow(this.run));
    this.run = null;
  }

  /** The next line of the trace (already read by the oracle: valid JSON, or blank). */
  push(text: string): void {
    const n = ++this.n;
    if (text.trim() !== '') {
      const l = JSON.parse(text) as Line;
      const type = l['type'];
      if (type === 'event' || type === 'tasks/event') {
        // The event the oracle decides on stands alone: the runs before it (duplicates, a
        // first stream) and the note after it must not blur where the proof came from.
        if (this.notes.has(n)) this.flush();
        const kind = type === 'event' ? 'sse' : 'task';
        const seq = seqOf(l);
        const stream = streamOf(l);
        const r = this.run;
        if (
          r !== null &&
          r.kind === kind &&
          r.stream === stream &&
          seq !== null &&
          r.last !== null &&
          seq === r.last + 1
        ) {
          r.last = seq;
          r.count++;
        } else {
          this.flush();
          this.run = { kind, first: seq, last: seq, stream, count: 1 };
        }
      } else {
        this.flush();
        for (const a of lineArrows(l)) this.emit(a);
      }
    }
    const decided = this.notes.get(n);
    if (decided !== undefined) {
      this.flush();
      for (const note of decided) this.emit(note);
    }
  }

  /** The end of the trace: the last run of events. */
  finish(): void {
    this.flush();
  }
}

/** The diagram of a trace already judged into `report` (`lines`: the trace's lines). */
export function diagramOf(lines: readonly string[], report: CheckReport): string {
  const out: string[] = [];
  const writer = new TraceDiagramWriter(decisionNotesByLine(report.reconnects), (l) => out.push(l));
  for (const text of lines) writer.push(text);
  writer.finish();
  return out.join('\n');
}

/**
 * The trace `text` (JSON lines) as a Mermaid sequence diagram with the oracle's decisions.
 * Rejects as `checkTrace` does on bad input.
 */
export async function traceSequenceDiagram(
  text: string,
  options: TraceDiagramOptions = {},
): Promise<string> {
  const lines = traceLines(text);
  const report = await checkTrace(lines, options);
  return diagramOf(lines, report);
}
