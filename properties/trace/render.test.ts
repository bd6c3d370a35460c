/**
 * The human output of `check` (src/trace/render.ts), exactly: every optional part of a block
 * present and absent, singular and plural counts, notes, the blank line before the summary
 * only when something came before it, and the text renderer's routing of each finding. And the
 * library entry's handling of a whole text (src/trace/check.ts).
 */
import { describe, expect, test } from 'vitest';
import {
  renderBreak,
  renderCursorAhead,
  renderReconnect,
  renderSummary,
  textRenderer,
} from '../../src/trace/render.js';
import type { CheckSummary, ReconnectReport } from '../../src/trace/report.js';
import { checkTrace } from '../../src/trace/index.js';

const reconnect: ReconnectReport = {
  line: 6,
  cursor: 3,
  stream: 'a',
  expected: 'resumption-failed',
  actual: 'resumed',
  verdict: 'unsafe-accept',
  reason: 'why',
  code: 'skip',
  rule: 6,
  decidedAt: 8,
  decisionLine: 9,
};

const summary = (over: Partial<CheckSummary> = {}): CheckSummary => ({
  lines: 18,
  reconnects: 2,
  expected: { resumed: 1, delayed: 0, 'resumption-failed': 1, 'session-lost': 0 },
  verdicts: { ok: 1, 'unsafe-accept': 1, 'false-alarm': 0, misclassified: 0, unchecked: 0 },
  breaks: 2,
  cursorAhead: 3,
  violations: 6,
  strict: false,
  ...over,
});

describe('text blocks', () => {
  test('a reconnect with every part', () => {
    expect(renderReconnect(reconnect)).toBe(
      [
        'line 6: reconnect with cursor 3 on stream a',
        '  expected  resumption-failed (rule 6, skip, decided at line 8)',
        '  actual    resumed (line 9)',
        '  verdict   unsafe-accept',
        '  reason    why',
        '',
      ].join('\n'),
    );
  });

  test('a reconnect without stream, cursor, rule or decision', () => {
    const { stream: _s, actual: _a, decisionLine: _d, ...bare } = reconnect;
    expect(renderReconnect({ ...bare, cursor: null, rule: null, code: null })).toBe(
      [
        'line 6: reconnect with no Last-Event-ID',
        '  expected  resumption-failed (decided at line 8)',
        '  actual    (no decision line)',
        '  verdict   unsafe-accept',
        '  reason    why',
        '',
      ].join('\n'),
    );
  });

  test('a break and a cursor ahead, with and without a stream', () => {
    const b = { line: 4, expected: 3, got: 5, reason: 'gap' };
    expect(renderBreak(b)).toBe('line 4: break: expected id 3, got 5: gap\n');
    expect(renderBreak({ ...b, stream: 's' })).toBe(
      'line 4: break: expected id 3, got 5 (stream s): gap\n',
    );
    const c = { line: 7, cursor: 9, lastReceived: 4 };
    const tail = 'but the last id received was 4; the client skips events itself\n';
    expect(renderCursorAhead(c)).toBe(`line 7: cursor ahead: reconnect with cursor 9, ${tail}`);
    expect(renderCursorAhead({ ...c, stream: 's' })).toBe(
      `line 7: cursor ahead: reconnect with cursor 9 on stream s, ${tail}`,
    );
  });
});

describe('the summary', () => {
  test('plural counts, no notes, not strict', () => {
    expect(renderSummary(summary(), 1)).toBe(
      [
        'summary: 18 lines, 2 reconnects',
        '  expected  1 resumed, 0 delayed, 1 resumption-failed, 0 session-lost',
        '  verdicts  1 ok, 1 unsafe-accept, 0 false-alarm, 0 misclassified, 0 unchecked',
        '  2 breaks, 3 cursors ahead',
        '  6 violations: exit 1',
        '',
      ].join('\n'),
    );
  });

  test('singular counts, strict, notes', () => {
    const s = summary({
      lines: 1,
      reconnects: 1,
      breaks: 1,
      cursorAhead: 1,
      violations: 1,
      strict: true,
      notes: ['first', 'second'],
    });
    expect(renderSummary(s, 1)).toBe(
      [
        'summary: 1 line, 1 reconnect',
        '  expected  1 resumed, 0 delayed, 1 resumption-failed, 0 session-lost',
        '  verdicts  1 ok, 1 unsafe-accept, 0 false-alarm, 0 misclassified, 0 unchecked',
        '  1 break, 1 cursor ahead',
        '  1 violation (strict): exit 1',
        '  note: first',
        '  note: second',
        '',
      ].join('\n'),
    );
  });
});

describe('the text renderer', () => {
  const empty = summary({ reconnects: 0, breaks: 0, cursorAhead: 0, violations: 0 });

  test('each finding goes to its own block, and a blank line comes before the summary', () => {
    let out = '';
    const r = textRenderer((t) => (out += t));
    r.reconnect(reconnect);
    r.break({ line: 4, expected: 3, got: 5, reason: 'gap' });
    r.cursorAhead({ line: 7, cursor: 9, lastReceived: 4 });
    r.finish(summary(), 1);
    expect(out).toBe(
      renderReconnect(reconnect) +
        'line 4: break: expected id 3, got 5: gap\n' +
        renderCursorAhead({ line: 7, cursor: 9, lastReceived: 4 }) +
        '\n' +
        renderSummary(summary(), 1),
    );
  });

  test.each([
    ['no finding', {}, ''],
    ['a reconnect only', { reconnects: 1 }, '\n'],
    ['a break only', { breaks: 1 }, '\n'],
    ['a cursor ahead only', { cursorAhead: 1 }, '\n'],
  ])('%s: the summary alone, or after a blank line', (_name, counts, before) => {
    let out = '';
    const s = { ...empty, ...counts };
    textRenderer((t) => (out += t)).finish(s, 0);
    expect(out).toBe(before + renderSummary(s, 0));
  });
});

describe('checkTrace on a whole text', () => {
  test('an empty text, or one newline, is an empty trace', async () => {
    expect((await checkTrace('')).summary.lines).toBe(0);
    expect((await checkTrace('\n')).summary.lines).toBe(0);
  });

  test('without a final newline the last line is read; with one, no blank line is added', async () => {
    const text = '{"type":"event","id":1}\n{"type":"reconnect","cursor":1}';
    const r = await checkTrace(text);
    expect(r.summary.lines).toBe(2);
    expect(r.reconnects.map((x) => x.line)).toEqual([2]);
    expect((await checkTrace(text + '\n')).summary.lines).toBe(2);
    expect((await checkTrace(text + '\n\n')).summary.lines).toBe(3);
  });
});
