/**
 * The checker's findings as text: one block per reconnect, one line per break or cursor ahead,
 * then a summary (the human output of `check`), or one JSON object written piece by piece
 * (`check --json`), so that neither holds the whole report.
 */
import { OUTCOMES } from '../../model/outcomes.js';
import type { CheckSink } from './checker.js';
import {
  VERDICTS,
  type BreakReport,
  type CheckSummary,
  type CursorAheadReport,
  type ReconnectReport,
} from './report.js';

/** Where a renderer writes. */
export type Write = (text: string) => void;

/** A sink that renders findings as they come, and a summary at the end. */
export interface Renderer extends Required<CheckSink> {
  finish(summary: CheckSummary, exitCode: number): void;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The words a report is printed in: the native (SSE) vocabulary, a task stream's, or A2A's. */
export type Words = 'sse' | 'tasks' | 'a2a';

/**
 * The words of a binding: `mcp-tasks` speaks of tasks, `after` and `seq`; `a2a` of
 * `SubscribeToTask` and generations; others of SSE.
 */
export const wordsOf = (binding: string): Words =>
  binding === 'mcp-tasks' ? 'tasks' : binding === 'a2a' ? 'a2a' : 'sse';

/** The head line of a reconnect under `a2a`: the `SubscribeToTask` as it was made. */
function a2aCall(r: ReconnectReport): string {
  const call = `SubscribeToTask for task ${r.stream ?? '?'}`;
  if (r.after !== undefined && r.after !== null) return `${call} with afterGeneration ${r.after}`;
  return r.cursor === null
    ? `${call} (no cursor: the wire carries none, and the client holds no generation)`
    : `${call} (the client's generation ${r.cursor}; the wire carries no cursor)`;
}

/** The head line of a reconnect under `mcp-tasks`: the call as it was made. */
function taskCall(r: ReconnectReport): string {
  const task = `tasks/stream for task ${r.stream ?? '?'}`;
  const after = r.after === undefined ? r.cursor : r.after;
  if (after !== null) return `${task} with after ${after}`;
  return r.cursor === null || r.cursor < 0
    ? `${task} without after, again from the task's start (first seq 0)`
    : `${task} without after (the last seq known is ${r.cursor}: the first new seq must be ${r.cursor + 1})`;
}

/** One reconnect as a block of text. */
export function renderReconnect(r: ReconnectReport, words: Words = 'sse'): string {
  const stream = r.stream === undefined ? '' : ` on stream ${r.stream}`;
  const cursor = r.cursor === null ? 'no Last-Event-ID' : `cursor ${r.cursor}`;
  const rule = r.rule === null ? '' : `rule ${r.rule}, ${r.code}, `;
  const actual =
    r.actual === undefined ? '(no decision line)' : `${r.actual} (line ${r.decisionLine})`;
  return [
    words === 'tasks'
      ? `line ${r.line}: ${taskCall(r)}`
      : words === 'a2a'
        ? `line ${r.line}: ${a2aCall(r)}`
        : `line ${r.line}: reconnect with ${cursor}${stream}`,
    `  expected  ${r.expected} (${rule}decided at line ${r.decidedAt})`,
    `  actual    ${actual}`,
    `  verdict   ${r.verdict}`,
    `  reason    ${r.reason}`,
    '',
  ].join('\n');
}

/** A break as one line. */
export function renderBreak(b: BreakReport, words: Words = 'sse'): string {
  if (words !== 'sse')
    return `line ${b.line}: break in the stream of task ${b.stream ?? '?'}: ${b.reason}\n`;
  const stream = b.stream === undefined ? '' : ` (stream ${b.stream})`;
  return `line ${b.line}: break: expected id ${b.expected}, got ${b.got}${stream}: ${b.reason}\n`;
}

/** A cursor ahead of the received events as one line. */
export function renderCursorAhead(c: CursorAheadReport, words: Words = 'sse'): string {
  if (words === 'tasks') {
    return `line ${c.line}: after ahead: tasks/stream for task ${c.stream ?? '?'} with after ${c.cursor}, but the last seq received was ${c.lastReceived} and no events_gone told a gap; the client skips events itself\n`;
  }
  if (words === 'a2a') {
    return `line ${c.line}: afterGeneration ahead: SubscribeToTask for task ${c.stream ?? '?'} with afterGeneration ${c.cursor}, but the last generation received was ${c.lastReceived}; the client skips updates itself\n`;
  }
  const stream = c.stream === undefined ? '' : ` on stream ${c.stream}`;
  return `line ${c.line}: cursor ahead: reconnect with cursor ${c.cursor}${stream}, but the last id received was ${c.lastReceived}; the client skips events itself\n`;
}

/** The summary as text. */
export function renderSummary(s: CheckSummary, exitCode: number, words: Words = 'sse'): string {
  const expected = OUTCOMES.map((o) => `${s.expected[o]} ${o}`).join(', ');
  const verdicts = VERDICTS.map((v) => `${s.verdicts[v]} ${v}`).join(', ');
  const tasks = words === 'tasks';
  const calls =
    words === 'a2a'
      ? plural(s.reconnects, 'SubscribeToTask call')
      : plural(s.reconnects, tasks ? 'resume call' : 'reconnect');
  const ahead =
    words === 'a2a'
      ? `${s.cursorAhead} afterGeneration ahead`
      : tasks
        ? `${s.cursorAhead} after ahead`
        : `${plural(s.cursorAhead, 'cursor', 'cursors')} ahead`;
  return [
    `summary: ${plural(s.lines, 'line')}, ${calls}`,
    `  expected  ${expected}`,
    `  verdicts  ${verdicts}`,
    `  ${plural(s.breaks, 'break')}, ${ahead}`,
    ...(s.dropped ?? []).map(
      (d) =>
        `  dropped call: line ${d.line}: the stream ended after id ${d.cursor} without its response, and the client never reconnected (change the client: reconnect with Last-Event-ID, or fail the call)`,
    ),
    `  ${plural(s.violations, 'violation')}${s.strict ? ' (strict)' : ''}: exit ${exitCode}`,
    ...(s.notes ?? []).map((n) => `  note: ${n}`),
    '',
  ].join('\n');
}

/**
 * The human output: findings in line order as they become final, then the summary, in the
 * words of the trace's binding (`binding()`, read when each finding is written: a binding line
 * names it only once the first line is read).
 */
export function textRenderer(write: Write, binding: () => string = () => 'mcp-sse'): Renderer {
  const w = () => wordsOf(binding());
  return {
    reconnect: (r) => write(renderReconnect(r, w())),
    break: (b) => write(renderBreak(b, w())),
    cursorAhead: (c) => write(renderCursorAhead(c, w())),
    finish: (s, exitCode) =>
      write(
        `${s.reconnects || s.breaks || s.cursorAhead ? '\n' : ''}${renderSummary(s, exitCode, w())}`,
      ),
  };
}

/**
 * The `--json` output: `{"reconnects":[…],"breaks":[…],"cursorAhead":[…],"summary":{…}}`.
 * Reconnects are written as they come; breaks and cursors ahead (violations, usually few) are
 * held until the end.
 */
export function jsonRenderer(write: Write): Renderer {
  let first = true;
  const breaks: BreakReport[] = [];
  const ahead: CursorAheadReport[] = [];
  write('{"reconnects":[');
  return {
    reconnect(r) {
      write((first ? '' : ',') + JSON.stringify(r));
      first = false;
    },
    break: (b) => breaks.push(b),
    cursorAhead: (c) => ahead.push(c),
    finish(summary, exitCode) {
      write(
        `],"breaks":${JSON.stringify(breaks)},"cursorAhead":${JSON.stringify(ahead)},"summary":${JSON.stringify(summary)},"exitCode":${exitCode}}\n`,
      );
    },
  };
}
