/**
 * `check`'s memory and time per line are bounded whatever a trace holds (docs/trace-format.md,
 * "The command"): one map entry per stream name, JSON nesting built level by level, and blank
 * lines parsed (and thrown) one by one were each found unbounded by the red team (issue 38). Each
 * bound is asserted by what check keeps or refuses, never by timing.
 */
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  checkTrace,
  MAX_NESTING,
  MAX_STREAM_NAMES,
  TraceChecker,
  type CheckReport,
} from '../../src/trace/index.js';
import { forEachLine } from '../../src/trace/read.js';
import { checkText } from './helpers.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('blank lines', () => {
  it('never reach JSON.parse: a blank line, white space or a lone CR is skipped before parsing', async () => {
    const parse = vi.spyOn(JSON, 'parse');
    const checker = new TraceChecker();
    // 3 lines of JSON (the common-lines fast path reads none of these through JSON.parse's
    // throw either way), and blank lines of each kind: empty, CRLF, a lone CR, white space.
    const text =
      '{"type":"open","status":200,"t":0}\n\n\r\n\r\r \t \n{"type":"event","id":1,"t":1}\r\n\n' +
      '{"type":"decision","outcome":"resumed"}'.replace('decision', 'keepalive') +
      '\n\n\r';
    await forEachLine(Readable.from([text]), (l) => checker.push(l));
    const summary = checker.finish();
    expect(summary.lines).toBe(11);
    // Every JSON.parse call was on a line with JSON in it: none threw.
    for (const [arg] of parse.mock.calls) expect(String(arg).trim()).not.toBe('');
    expect(parse.mock.results.every((r) => r.type === 'return')).toBe(true);
  });

  it('are legal and counted in line numbers', async () => {
    const r = await checkText('\n\r\n{"type":"open"}\n\n{"type":"nope"}\n');
    expect(r.code).toBe(2);
    expect(r.err.trim()).toMatch(/^check: <stdin>: line 5: unknown type "nope"/);
  });
});

describe('JSON nesting', () => {
  const nested = (depth: number) =>
    `{"type":"event","id":1,"data":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;

  it(`a line nested deeper than ${MAX_NESTING} levels is refused with one line, before it is built`, async () => {
    const parse = vi.spyOn(JSON, 'parse');
    const r = await checkText(`{"type":"open"}\n${nested(MAX_NESTING + 1)}\n`);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err.trim()).toBe(
      `check: <stdin>: line 2: JSON nested deeper than ${MAX_NESTING} levels: check refuses it rather than build it (each level costs memory outside what the line itself takes)`,
    );
    // The deep line was never handed to JSON.parse.
    expect(parse.mock.calls.some(([arg]) => String(arg).length > MAX_NESTING)).toBe(false);
  });

  it(`a line nested ${MAX_NESTING} levels deep is read (the data field is ignored)`, async () => {
    const report: CheckReport = await checkTrace(['{"type":"open"}', nested(MAX_NESTING)]);
    expect(report.exitCode).toBe(0);
  });

  it('brackets inside strings, escaped quotes included, are not nesting', async () => {
    const text = `"\\"${'['.repeat(MAX_NESTING + 1)}"`;
    const report = await checkTrace(['{"type":"open"}', `{"type":"event","id":1,"data":${text}}`]);
    expect(report.exitCode).toBe(0);
  });
});

describe('stream names', () => {
  const named = (i: number) => `{"type":"event","id":${i},"stream":"s${i}"}`;

  it(`more than ${MAX_STREAM_NAMES} distinct stream names since the last open are refused with one line`, async () => {
    const lines = ['{"type":"open"}'];
    for (let i = 0; i <= MAX_STREAM_NAMES; i++) lines.push(named(i));
    await expect(checkTrace(lines)).rejects.toThrow(
      `line ${MAX_STREAM_NAMES + 2}: more than ${MAX_STREAM_NAMES} distinct stream names since the last open`,
    );
    // At the bound, and after an open (which forgets them), the names are taken.
    lines.pop();
    lines.push('{"type":"open"}', named(MAX_STREAM_NAMES));
    const report = await checkTrace(lines);
    expect(report.summary.lines).toBe(MAX_STREAM_NAMES + 3);
  });
});
