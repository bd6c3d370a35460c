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

/** One reconnect as a block of text. */
export function renderReconnect(r: ReconnectReport): string {
  const stream = r.stream === undefined ? '' : ` on stream ${r.stream}`;
  const cursor = r.cursor === null ? 'no Last-Event-ID' : `cursor ${r.cursor}`;
  const rule = r.rule === null ? '' : `rule ${r.rule}, ${r.code}, `;
  const actual =
    r.actual === undefined ? '(no decision line)' : `${r.actual} (line ${r.decisionLine})`;
  return [
    `line ${r.line}: reconnect with ${cursor}${stream}`,
    `  expected  ${r.expected} (${rule}decided at line ${r.decidedAt})`,
    `  actual    ${actual}`,
    `  verdict   ${r.verdict}`,
    `  reason    ${r.reason}`,
    '',
  ].join('\n');
}

/** A break as one line. */
export function renderBreak(b: BreakReport): string {
  const stream = b.stream === undefined ? '' : ` (stream ${b.stream})`;
  return `line ${b.line}: break: expected id ${b.expected}, got ${b.got}${stream}: ${b.reason}\n`;
}

/** A cursor ahead of the received events as one line. */
export function renderCursorAhead(c: CursorAheadReport): string {
  const stream = c.stream === undefined ? '' : ` on stream ${c.stream}`;
  return `line ${c.line}: cursor ahead: reconnect with cursor ${c.cursor}${stream}, but the last id received was ${c.lastReceived}; the client skips events itself\n`;
}

/** The summary as text. */
export function renderSummary(s: CheckSummary, exitCode: number): string {
  const expected = OUTCOMES.map((o) => `${s.expected[o]} ${o}`).join(', ');
  const verdicts = VERDICTS.map((v) => `${s.verdicts[v]} ${v}`).join(', ');
  return [
    `summary: ${plural(s.lines, 'line')}, ${plural(s.reconnects, 'reconnect')}`,
    `  expected  ${expected}`,
    `  verdicts  ${verdicts}`,
    `  ${plural(s.breaks, 'break')}, ${plural(s.cursorAhead, 'cursor', 'cursors')} ahead`,
    ...(s.dropped ?? []).map(
      (d) =>
        `  dropped call: line ${d.line}: the stream ended after id ${d.cursor} without its response, and the client never reconnected (change the client: reconnect with Last-Event-ID, or fail the call)`,
    ),
    `  ${plural(s.violations, 'violation')}${s.strict ? ' (strict)' : ''}: exit ${exitCode}`,
    ...(s.notes ?? []).map((n) => `  note: ${n}`),
    '',
  ].join('\n');
}

/** The human output: findings in line order as they become final, then the summary. */
export function textRenderer(write: Write): Renderer {
  return {
    reconnect: (r) => write(renderReconnect(r)),
    break: (b) => write(renderBreak(b)),
    cursorAhead: (c) => write(renderCursorAhead(c)),
    finish: (s, exitCode) =>
      write(
        `${s.reconnects || s.breaks || s.cursorAhead ? '\n' : ''}${renderSummary(s, exitCode)}`,
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
