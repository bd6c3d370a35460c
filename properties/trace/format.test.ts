/**
 * Trace format v1, line by line (src/trace/format.ts): what each line parses to, exactly, and
 * the exact one-line error for each kind of bad input: a byte-order mark, JSON that is not an
 * object, `null` optional fields, numbers where strings go, huge and negative numbers, opaque
 * ids read by an `--id-pattern` (also a global one reused across lines).
 */
import { describe, expect, it } from 'vitest';
import {
  compileIdPattern,
  isBlank,
  parseTraceLine,
  TraceInputError,
  type IdPattern,
} from '../../src/trace/format.js';

const TYPES =
  'open, event, keepalive, idle-timeout, disconnect, end, reconnect, response, decision';
const OUTCOME_LIST = 'resumed, delayed, resumption-failed, session-lost';

/** Parses a line given as an object (or as text). */
function parse(line: unknown, n = 1, idPattern?: IdPattern) {
  return parseTraceLine(typeof line === 'string' ? line : JSON.stringify(line), n, idPattern);
}

/** The error message for `line` (it must be a TraceInputError for line `n`). */
function error(line: unknown, n = 1, idPattern?: IdPattern): string {
  try {
    parse(line, n, idPattern);
  } catch (e) {
    expect(e).toBeInstanceOf(TraceInputError);
    expect((e as TraceInputError).line).toBe(n);
    expect((e as TraceInputError).name).toBe('TraceInputError');
    return (e as Error).message;
  }
  throw new Error(`expected a TraceInputError for ${String(line)}`);
}

/** A message of a thrown plain Error. */
function thrown(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    expect(e).not.toBeInstanceOf(TraceInputError);
    return (e as Error).message;
  }
  throw new Error('expected an error');
}

describe('TraceInputError', () => {
  it('names the line and keeps the message on one printable line', () => {
    const e = new TraceInputError(7, 'bad');
    expect(e).toBeInstanceOf(Error);
    expect([e.name, e.line, e.message]).toEqual(['TraceInputError', 7, 'line 7: bad']);
    expect(new TraceInputError(0, 'x').message).toBe('line 0: x');
  });

  it('folds line breaks, with the blanks around them, into one space', () => {
    expect(new TraceInputError(1, 'a \r\n  b').message).toBe('line 1: a b');
    expect(new TraceInputError(1, 'a\n\n\nb').message).toBe('line 1: a b');
    expect(new TraceInputError(1, 'a\rb\u2028c\u2029d').message).toBe('line 1: a b c d');
    expect(new TraceInputError(1, 'a  b').message).toBe('line 1: a  b');
  });

  it('escapes the other control characters, C0 and C1', () => {
    expect(new TraceInputError(1, 'a\tb\u0000c\u001fd').message).toBe(
      'line 1: a\\u0009b\\u0000c\\u001fd',
    );
    expect(new TraceInputError(1, '\u007f\u0080\u009f').message).toBe(
      'line 1: \\u007f\\u0080\\u009f',
    );
    expect(new TraceInputError(1, '~ \u00a0\u00ff').message).toBe('line 1: ~ \u00a0\u00ff');
  });
});

describe('isBlank', () => {
  it('is true for whitespace only', () => {
    expect(['', ' ', '\t', '\r', ' \u00a0 '].map(isBlank)).toEqual([true, true, true, true, true]);
    expect([' x ', '{}', '0'].map(isBlank)).toEqual([false, false, false]);
  });
});

describe('parseTraceLine: blank lines, BOM, JSON that is not an object', () => {
  it('skips blank lines', () => {
    expect(parseTraceLine('', 3)).toBeNull();
    expect(parseTraceLine('  \t ', 3)).toBeNull();
    expect(parseTraceLine('\r', 3)).toBeNull();
  });

  it('drops a byte-order mark on line 1 only', () => {
    expect(parseTraceLine('\ufeff{"type":"end"}', 1)).toStrictEqual({ type: 'end' });
    expect(parseTraceLine('\ufeff', 1)).toBeNull();
    expect(error('\ufeff{"type":"end"}', 2)).toBe(
      'line 2: invalid JSON (Unexpected token \'\ufeff\', "\ufeff{"type":"end"}" is not valid JSON)',
    );
    // Only at the very start of the line.
    expect(error(' \ufeff{"type":"end"}', 1)).toBe(
      'line 1: invalid JSON (Unexpected token \'\ufeff\', " \ufeff{"type":"end"}" is not valid JSON)',
    );
  });

  it('names invalid JSON, escaped and clipped to one short line', () => {
    expect(error('{"type":', 4)).toBe('line 4: invalid JSON (Unexpected end of JSON input)');
    expect(error('x', 5)).toBe(
      `line 5: invalid JSON (Unexpected token 'x', "x" is not valid JSON)`,
    );
    expect(error('\u0001', 6)).toBe(
      `line 6: invalid JSON (Unexpected token '\\u0001', "\\u0001" is not valid JSON)`,
    );
    expect(error('{"type":"event","id":1}}', 7)).toBe(
      'line 7: invalid JSON (Unexpected non-whitespace character after JSON at positio...)',
    );
  });

  it('wants an object: scalars, null and arrays are named', () => {
    expect(error('1')).toBe('line 1: a trace line must be a JSON object, got 1');
    expect(error('"x"', 2)).toBe('line 2: a trace line must be a JSON object, got "x"');
    expect(error('null', 3)).toBe('line 3: a trace line must be a JSON object, got null');
    expect(error('true', 4)).toBe('line 4: a trace line must be a JSON object, got true');
    expect(error('[]', 5)).toBe('line 5: a trace line must be a JSON object, got an array');
    expect(error('[{"type":"end"}]', 6)).toBe(
      'line 6: a trace line must be a JSON object, got an array',
    );
  });

  it('wants a known type', () => {
    expect(error({})).toBe(`line 1: a trace line needs a "type" (one of ${TYPES})`);
    expect(error({ type: 'foo' }, 2)).toBe(`line 2: unknown type "foo" (expected one of ${TYPES})`);
    expect(error({ type: null }, 3)).toBe(`line 3: unknown type null (expected one of ${TYPES})`);
    expect(error({ type: 5 }, 4)).toBe(`line 4: unknown type 5 (expected one of ${TYPES})`);
    expect(error({ type: ['end'] }, 5)).toBe(
      `line 5: unknown type an array (expected one of ${TYPES})`,
    );
    expect(error({ type: { a: 1 } }, 6)).toBe(
      `line 6: unknown type an object (expected one of ${TYPES})`,
    );
    expect(error({ type: 'END' }, 7)).toBe(`line 7: unknown type "END" (expected one of ${TYPES})`);
  });

  it('shows a long string clipped, in its JSON form', () => {
    const long = 'a'.repeat(100);
    expect(error({ type: long })).toBe(
      `line 1: unknown type "${'a'.repeat(56)}... (expected one of ${TYPES})`,
    );
    // 58 characters are 60 in JSON: shown whole; one more is clipped.
    expect(error({ type: 'b'.repeat(58) })).toBe(
      `line 1: unknown type "${'b'.repeat(58)}" (expected one of ${TYPES})`,
    );
    expect(error({ type: 'b'.repeat(59) })).toBe(
      `line 1: unknown type "${'b'.repeat(56)}... (expected one of ${TYPES})`,
    );
    expect(error({ type: 'q"\n' })).toBe(
      `line 1: unknown type "q\\"\\n" (expected one of ${TYPES})`,
    );
  });
});

describe('parseTraceLine: each type', () => {
  it('open: status 200 unless stated, an optional epoch', () => {
    expect(parse({ type: 'open' })).toStrictEqual({ type: 'open', status: 200 });
    expect(parse({ type: 'open', status: 0 })).toStrictEqual({ type: 'open', status: 0 });
    expect(parse({ type: 'open', status: 503, epoch: 'e1' })).toStrictEqual({
      type: 'open',
      status: 503,
      epoch: 'e1',
    });
    expect(parse({ type: 'open', epoch: null })).toStrictEqual({ type: 'open', status: 200 });
    expect(parse({ type: 'open', epoch: 7 })).toStrictEqual({
      type: 'open',
      status: 200,
      epoch: '7',
    });
    expect(parse({ type: 'open', epoch: '' })).toStrictEqual({
      type: 'open',
      status: 200,
      epoch: '',
    });
  });

  it('open: bad status and epoch', () => {
    const st = 'open status must be a non-negative integer, got';
    expect(error({ type: 'open', status: null })).toBe(`line 1: ${st} null`);
    expect(error({ type: 'open', status: '200' })).toBe(`line 1: ${st} "200"`);
    expect(error({ type: 'open', status: -1 })).toBe(`line 1: ${st} -1`);
    expect(error({ type: 'open', status: 200.5 })).toBe(`line 1: ${st} 200.5`);
    expect(error({ type: 'open', status: 2 ** 53 })).toBe(`line 1: ${st} 9007199254740992`);
    expect(error({ type: 'open', epoch: true }, 2)).toBe(
      'line 2: open epoch must be a string, got true',
    );
    expect(error({ type: 'open', epoch: {} }, 2)).toBe(
      'line 2: open epoch must be a string, got an object',
    );
    expect(error('{"type":"open","epoch":1e999}', 3)).toBe(
      'line 3: open epoch must be a string, got Infinity',
    );
  });

  it('event: an id as a number or a decimal string, an optional stream', () => {
    expect(parse({ type: 'event', id: 0 })).toStrictEqual({ type: 'event', id: 0 });
    expect(parse({ type: 'event', id: '42' })).toStrictEqual({ type: 'event', id: 42 });
    expect(parse({ type: 'event', id: '007' })).toStrictEqual({ type: 'event', id: 7 });
    expect(parse({ type: 'event', id: 2 ** 53 - 1 })).toStrictEqual({
      type: 'event',
      id: 2 ** 53 - 1,
    });
    expect(parse({ type: 'event', id: '9007199254740991' })).toStrictEqual({
      type: 'event',
      id: 2 ** 53 - 1,
    });
    expect(parse({ type: 'event', id: 3, stream: 's' })).toStrictEqual({
      type: 'event',
      id: 3,
      stream: 's',
    });
    expect(parse({ type: 'event', id: 3, stream: 9 })).toStrictEqual({
      type: 'event',
      id: 3,
      stream: '9',
    });
    expect(parse({ type: 'event', id: 3, stream: null })).toStrictEqual({ type: 'event', id: 3 });
  });

  it('event: no id (absent, null or empty) is an id-less event; its stream is dropped', () => {
    for (const line of [
      { type: 'event' },
      { type: 'event', id: null },
      { type: 'event', id: '' },
      { type: 'event', id: null, stream: 's', kind: 'x' },
    ]) {
      expect(parse(line)).toStrictEqual({ type: 'event' });
    }
  });

  it('event: bad ids', () => {
    expect(error({ type: 'event', id: 1.5 })).toBe('line 1: event id must be an integer, got 1.5');
    expect(error({ type: 'event', id: -1 })).toBe('line 1: negative id -1 in event');
    expect(error({ type: 'event', id: '-12' })).toBe('line 1: negative id -12 in event');
    expect(error({ type: 'event', id: 2 ** 53 })).toBe(
      'line 1: id 9007199254740992 in event is larger than 2^53-1',
    );
    expect(error('{"type":"event","id":1e300}')).toBe(
      'line 1: id 1e+300 in event is larger than 2^53-1',
    );
    expect(error({ type: 'event', id: '9007199254740992' })).toBe(
      'line 1: id 9007199254740992 in event is larger than 2^53-1',
    );
    expect(error({ type: 'event', id: true })).toBe(
      'line 1: event id must be an integer, got true',
    );
    expect(error({ type: 'event', id: {} })).toBe(
      'line 1: event id must be an integer, got an object',
    );
    expect(error({ type: 'event', id: [1] })).toBe(
      'line 1: event id must be an integer, got an array',
    );
    expect(error({ type: 'event', id: 1, stream: false }, 9)).toBe(
      'line 9: event stream must be a string, got false',
    );
  });

  it('event: a huge decimal string is clipped at 60 characters', () => {
    const sixty = '9'.repeat(60);
    expect(error({ type: 'event', id: sixty })).toBe(
      `line 1: id ${sixty} in event is larger than 2^53-1`,
    );
    expect(error({ type: 'event', id: '9'.repeat(61) })).toBe(
      `line 1: id ${'9'.repeat(57)}... in event is larger than 2^53-1`,
    );
    expect(error({ type: 'event', id: `-${'1'.repeat(70)}` })).toBe(
      `line 1: negative id -${'1'.repeat(56)}... in event`,
    );
  });

  it('event: an opaque id needs --id-pattern', () => {
    const hint =
      'is not a decimal integer; pass --id-pattern with a (?<seq>...) group to read opaque ids';
    expect(error({ type: 'event', id: 'abc' })).toBe(`line 1: event id "abc" ${hint}`);
    expect(error({ type: 'event', id: '5x' })).toBe(`line 1: event id "5x" ${hint}`);
    expect(error({ type: 'event', id: 'x5' })).toBe(`line 1: event id "x5" ${hint}`);
    expect(error({ type: 'event', id: '-5x' })).toBe(`line 1: event id "-5x" ${hint}`);
    expect(error({ type: 'event', id: 'x-5' })).toBe(`line 1: event id "x-5" ${hint}`);
    expect(error({ type: 'event', id: ' 5' })).toBe(`line 1: event id " 5" ${hint}`);
  });

  it('keepalive, idle-timeout, disconnect, end: the type alone', () => {
    for (const type of ['keepalive', 'idle-timeout', 'disconnect', 'end']) {
      expect(parse({ type, id: 5, status: 'x', extra: [1] })).toStrictEqual({ type });
    }
  });

  it('reconnect: a cursor, or null / "" for no Last-Event-ID', () => {
    expect(parse({ type: 'reconnect', cursor: 41 })).toStrictEqual({
      type: 'reconnect',
      cursor: 41,
    });
    expect(parse({ type: 'reconnect', cursor: 0, stream: 's' })).toStrictEqual({
      type: 'reconnect',
      cursor: 0,
      stream: 's',
    });
    expect(parse({ type: 'reconnect', cursor: '41', stream: null })).toStrictEqual({
      type: 'reconnect',
      cursor: 41,
    });
    for (const cursor of [null, '']) {
      expect(parse({ type: 'reconnect', cursor, stream: 's' })).toStrictEqual({
        type: 'reconnect',
        cursor: null,
      });
    }
  });

  it('reconnect: a missing or bad cursor', () => {
    expect(error({ type: 'reconnect' }, 12)).toBe(
      'line 12: reconnect has no cursor (use "cursor": null for a reconnect without Last-Event-ID)',
    );
    expect(error({ type: 'reconnect', cursor: -3 })).toBe(
      'line 1: negative cursor -3 in reconnect',
    );
    expect(error({ type: 'reconnect', cursor: 0.5 })).toBe(
      'line 1: reconnect cursor must be an integer, got 0.5',
    );
    expect(error({ type: 'reconnect', cursor: 'c41' })).toBe(
      'line 1: reconnect cursor "c41" is not a decimal integer; pass --id-pattern with a (?<seq>...) group to read opaque ids',
    );
    expect(error({ type: 'reconnect', cursor: 1, stream: [] })).toBe(
      'line 1: reconnect stream must be a string, got an array',
    );
  });

  it('response: a status, and floor, epoch and durable when stated (null: not stated)', () => {
    expect(parse({ type: 'response', status: 200 })).toStrictEqual({
      type: 'response',
      status: 200,
    });
    expect(
      parse({ type: 'response', status: 200, floor: null, epoch: null, durable: null }),
    ).toStrictEqual({ type: 'response', status: 200 });
    expect(
      parse({ type: 'response', status: 404, floor: 0, epoch: '', durable: false }),
    ).toStrictEqual({ type: 'response', status: 404, floor: 0, epoch: '', durable: false });
    expect(
      parse({ type: 'response', status: 200, floor: '42', epoch: 3, durable: true }),
    ).toStrictEqual({ type: 'response', status: 200, floor: 42, epoch: '3', durable: true });
  });

  it('response: bad fields', () => {
    expect(error({ type: 'response' })).toBe(
      'line 1: response status must be a non-negative integer, got nothing',
    );
    expect(error({ type: 'response', status: 200, floor: -1 })).toBe(
      'line 1: negative floor -1 in response',
    );
    expect(error({ type: 'response', status: 200, floor: '-1' })).toBe(
      'line 1: negative floor -1 in response',
    );
    expect(error({ type: 'response', status: 200, floor: 'x' })).toBe(
      'line 1: response floor must be an integer, got "x"',
    );
    expect(error({ type: 'response', status: 200, floor: '-1x' })).toBe(
      'line 1: response floor must be an integer, got "-1x"',
    );
    expect(error({ type: 'response', status: 200, floor: 'x-1' })).toBe(
      'line 1: response floor must be an integer, got "x-1"',
    );
    expect(error({ type: 'response', status: 200, floor: '1x' })).toBe(
      'line 1: response floor must be an integer, got "1x"',
    );
    expect(error({ type: 'response', status: 200, floor: '' })).toBe(
      'line 1: response floor must be an integer, got ""',
    );
    expect(error({ type: 'response', status: 200, floor: 1.25 })).toBe(
      'line 1: response floor must be an integer, got 1.25',
    );
    expect(error({ type: 'response', status: 200, epoch: [] })).toBe(
      'line 1: response epoch must be a string, got an array',
    );
    expect(error({ type: 'response', status: 200, durable: 'true' })).toBe(
      'line 1: response durable must be true or false, got "true"',
    );
    expect(error({ type: 'response', status: 200, durable: 0 })).toBe(
      'line 1: response durable must be true or false, got 0',
    );
  });

  it('decision: one of the four outcomes', () => {
    for (const outcome of ['resumed', 'delayed', 'resumption-failed', 'session-lost']) {
      expect(parse({ type: 'decision', outcome, why: 'x' })).toStrictEqual({
        type: 'decision',
        outcome,
      });
    }
    expect(error({ type: 'decision', outcome: 'maybe' })).toBe(
      `line 1: unknown decision outcome "maybe" (expected one of ${OUTCOME_LIST})`,
    );
    expect(error({ type: 'decision' })).toBe(
      `line 1: unknown decision outcome nothing (expected one of ${OUTCOME_LIST})`,
    );
    expect(error({ type: 'decision', outcome: 1 })).toBe(
      `line 1: unknown decision outcome 1 (expected one of ${OUTCOME_LIST})`,
    );
    expect(error({ type: 'decision', outcome: 'toString' })).toBe(
      `line 1: unknown decision outcome "toString" (expected one of ${OUTCOME_LIST})`,
    );
  });
});

describe('parseTraceLine: the time stamp t', () => {
  const timed = (line: unknown, n = 1) => parseTraceLine(JSON.stringify(line), n, undefined, true);
  const timedError = (line: unknown, n = 1) => {
    try {
      timed(line, n);
    } catch (e) {
      expect(e).toBeInstanceOf(TraceInputError);
      return (e as Error).message;
    }
    throw new Error('expected a TraceInputError');
  };

  it('is ignored unless asked for, even when it is not a number', () => {
    expect(parse({ type: 'end', t: 5 })).toStrictEqual({ type: 'end' });
    expect(parse({ type: 'end', t: 'soon' })).toStrictEqual({ type: 'end' });
    expect(parseTraceLine('{"type":"end","t":5}', 1, undefined, false)).toStrictEqual({
      type: 'end',
    });
  });

  it('is read as a finite number of milliseconds when asked for', () => {
    expect(timed({ type: 'end', t: 5 })).toStrictEqual({ type: 'end', t: 5 });
    expect(timed({ type: 'event', id: 1, t: 0 })).toStrictEqual({ type: 'event', id: 1, t: 0 });
    expect(timed({ type: 'keepalive', t: -2.5 })).toStrictEqual({ type: 'keepalive', t: -2.5 });
    expect(timed({ type: 'end' })).toStrictEqual({ type: 'end' });
    expect(timed({ type: 'end', t: null })).toStrictEqual({ type: 'end' });
    expect(parseTraceLine('', 1, undefined, true)).toBeNull();
  });

  it('must be a finite number', () => {
    const bad = 't must be a number of milliseconds, got';
    expect(timedError({ type: 'end', t: '5' }, 3)).toBe(`line 3: ${bad} "5"`);
    expect(timedError({ type: 'end', t: true }, 4)).toBe(`line 4: ${bad} true`);
    expect(timedError({ type: 'end', t: [] }, 5)).toBe(`line 5: ${bad} an array`);
    expect(() => parseTraceLine('{"type":"end","t":1e999}', 6, undefined, true)).toThrow(
      new TraceInputError(6, `${bad} Infinity`),
    );
  });

  it('comes after the line itself: a bad line is named first', () => {
    expect(timedError({ type: 'nope', t: 'x' })).toBe(
      `line 1: unknown type "nope" (expected one of ${TYPES})`,
    );
  });
});

describe('compileIdPattern', () => {
  it('takes a string or a RegExp with a seq group', () => {
    expect(compileIdPattern('^s(?<seq>\\d+)$').regex).toEqual(/^s(?<seq>\d+)$/);
    const re = /(?<seq>\d+)/i;
    expect(compileIdPattern(re).regex).toBe(re);
  });

  it('drops the global and sticky flags, keeps the others', () => {
    expect(compileIdPattern(/(?<seq>\d+)/g).regex.flags).toBe('');
    expect(compileIdPattern(/(?<seq>\d+)/y).regex.flags).toBe('');
    expect(compileIdPattern(/(?<seq>\d+)/dgimsuy).regex.flags).toBe('dimsu');
    const p = compileIdPattern(/x(?<seq>\d+)/gi).regex;
    expect([p.source, p.flags, p.lastIndex]).toEqual(['x(?<seq>\\d+)', 'i', 0]);
  });

  it('refuses a pattern that does not compile or has no seq group', () => {
    expect(thrown(() => compileIdPattern('('))).toBe(
      '--id-pattern does not compile: Invalid regular expression: /(/: Unterminated group',
    );
    expect(thrown(() => compileIdPattern('\\d+'))).toBe(
      '--id-pattern "\\\\d+" has no named group (?<seq>...) for the sequence number',
    );
    expect(thrown(() => compileIdPattern(/(?<sequence>\d+)/))).toBe(
      '--id-pattern "(?<sequence>\\\\d+)" has no named group (?<seq>...) for the sequence number',
    );
    expect(thrown(() => compileIdPattern('(?<id>\\d+)'))).toBe(
      '--id-pattern "(?<id>\\\\d+)" has no named group (?<seq>...) for the sequence number',
    );
  });
});

describe('opaque ids through an --id-pattern', () => {
  // Compiled in each test, not while the suite is collected (see engine.test.ts).
  const streamed = () => compileIdPattern('^(?<stream>[a-z]+)-(?<seq>\\d+)$');

  it('reads the seq number, and the stream when the pattern names one', () => {
    expect(parse({ type: 'event', id: 'abc-41' }, 1, streamed())).toStrictEqual({
      type: 'event',
      id: 41,
      stream: 'abc',
    });
    expect(parse({ type: 'reconnect', cursor: 'abc-41' }, 1, streamed())).toStrictEqual({
      type: 'reconnect',
      cursor: 41,
      stream: 'abc',
    });
    const plain = compileIdPattern('^e(?<seq>\\d+)$');
    expect(parse({ type: 'event', id: 'e7' }, 1, plain)).toStrictEqual({ type: 'event', id: 7 });
    expect(parse({ type: 'reconnect', cursor: 'e7' }, 1, plain)).toStrictEqual({
      type: 'reconnect',
      cursor: 7,
    });
  });

  it('a stream field wins over the stream the pattern reads', () => {
    expect(parse({ type: 'event', id: 'abc-1', stream: 'zz' }, 1, streamed())).toStrictEqual({
      type: 'event',
      id: 1,
      stream: 'zz',
    });
    expect(
      parse({ type: 'reconnect', cursor: 'abc-1', stream: 'zz' }, 1, streamed()),
    ).toStrictEqual({
      type: 'reconnect',
      cursor: 1,
      stream: 'zz',
    });
  });

  it('leaves decimal and negative strings to the integer rules', () => {
    const any = compileIdPattern('(?<seq>\\d+)');
    expect(parse({ type: 'event', id: '12' }, 1, streamed())).toStrictEqual({
      type: 'event',
      id: 12,
    });
    expect(error({ type: 'event', id: '-12' }, 1, any)).toBe('line 1: negative id -12 in event');
  });

  it('names an id the pattern does not match, or whose seq is not decimal', () => {
    expect(error({ type: 'event', id: 'ABC-1' }, 3, streamed())).toBe(
      'line 3: event id "ABC-1" does not match --id-pattern /^(?<stream>[a-z]+)-(?<seq>\\d+)$/',
    );
    const optionalSeq = compileIdPattern('^x(?<seq>\\d+)?$');
    expect(error({ type: 'reconnect', cursor: 'x' }, 4, optionalSeq)).toBe(
      'line 4: reconnect cursor "x" does not match --id-pattern /^x(?<seq>\\d+)?$/',
    );
    // `(?<seq>` escaped: the text is there, the named group is not.
    const noGroups = compileIdPattern('^\\(?<seq>\\d+$');
    expect(error({ type: 'event', id: '<seq>5' }, 4, noGroups)).toBe(
      'line 4: event id "<seq>5" does not match --id-pattern /^\\(?<seq>\\d+$/',
    );
    const words = compileIdPattern('^(?<seq>\\w+)$');
    expect(error({ type: 'event', id: 'ab' }, 5, words)).toBe(
      'line 5: event id "ab": the seq group matched "ab", not a decimal integer',
    );
    expect(error({ type: 'event', id: '12a' }, 5, words)).toBe(
      'line 5: event id "12a": the seq group matched "12a", not a decimal integer',
    );
    const spaced = compileIdPattern('^#(?<seq>.*)$');
    expect(error({ type: 'event', id: '#1 ' }, 6, spaced)).toBe(
      'line 6: event id "#1 ": the seq group matched "1 ", not a decimal integer',
    );
    expect(error({ type: 'event', id: '#x1' }, 6, spaced)).toBe(
      'line 6: event id "#x1": the seq group matched "x1", not a decimal integer',
    );
  });

  it('applies the integer limits to the seq group', () => {
    const p = compileIdPattern('^e(?<seq>\\d+)$');
    expect(error({ type: 'event', id: 'e99999999999999999999' }, 2, p)).toBe(
      'line 2: id 99999999999999999999 in event is larger than 2^53-1',
    );
  });

  it('a global pattern reads every line the same, however often it is reused', () => {
    const global = compileIdPattern(/(?<stream>[a-z]+)-(?<seq>\d+)/g);
    for (let line = 1; line <= 4; line += 1) {
      expect(parse({ type: 'event', id: 'abc-41' }, line, global)).toStrictEqual({
        type: 'event',
        id: 41,
        stream: 'abc',
      });
    }
    const sticky = compileIdPattern(/(?<seq>\d+)/y);
    expect(parse({ type: 'event', id: 'x5' }, 1, sticky)).toStrictEqual({ type: 'event', id: 5 });
    expect(parse({ type: 'event', id: 'x5' }, 2, sticky)).toStrictEqual({ type: 'event', id: 5 });
  });
});
