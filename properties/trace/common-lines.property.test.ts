/**
 * The fast path for common lines (src/trace/common-lines.ts) against the full path through
 * `JSON.parse` (parseTraceLineViaJson): on every generated line that the fast path takes, the
 * two give the same line; a line that the full path refuses is never taken. Lines are built
 * member by member, so that duplicate keys, keys out of order, leading zeros, fractions,
 * exponents, escapes, deep values and whitespace all come up, and then some are mutated one
 * character at a time. Each property kills a fast path that is wrong in one way.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BARE_LINE, EVENT_LINE, parseCommonLine } from '../../src/trace/common-lines.js';
import { parseTraceLine, parseTraceLineViaJson } from '../../src/trace/format.js';
import { announceSeed } from '../support/seed.js';
import { params } from './grammar.js';

announceSeed('properties/trace/common-lines.property.test.ts');

const KEYS = ['type', 'id', 'stream', 't', 'kind', 'data', 'cursor', '__proto__', 'x_1'];
const TYPES = ['event', 'keepalive', 'idle-timeout', 'disconnect', 'end', 'open', 'evENT', ''];
/** Value texts that the fast path must read exactly as JSON.parse does, or refuse. */
const HAND_VALUES = [
  '0',
  '-0',
  '007',
  '1.5',
  '1e3',
  '-1',
  '999999999999999',
  '1000000000000000',
  '9007199254740993',
  '"5"',
  '"a\\"b"',
  '"\\u0065vent"',
  '"s:1"',
  '{}',
  '{"done":1}',
  '{"a":{"b":1}}',
  '[1]',
  'true',
  'null',
  '{"done":1,}',
  '"unterminated',
  '"bad \\x escape"',
  '"raw\ttab"',
];

const valueText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...TYPES).map((t) => JSON.stringify(t)),
  fc.nat({ max: 2000 }).map(String),
  fc.integer().map(String),
  fc.constantFrom(...HAND_VALUES),
  // Strings whose escapes JSON.parse decodes (a fast path that copies the raw text reads them
  // wrong): as common as the hand values, so that every run meets them in the members a fast
  // path reads (stream, kind, data).
  fc.constantFrom('"\\u0061"', '"a\\/b"', '"x\\ny"', '"\\\\"', '"s\\u003a1"'),
  fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v)),
);

/**
 * The head of a line: most often the fast path's own (`"type":"event","id":N` or a bare type
 * first), else a type anywhere among the members.
 */
const head: fc.Arbitrary<[string, string][] | null> = fc.oneof(
  fc
    .tuple(fc.nat({ max: 5000 }), fc.constantFrom('%', '%', '%', '0%', '-%', '%.5', '%e1', '"%"'))
    .map(([id, form]): [string, string][] => [
      ['type', '"event"'],
      ['id', form.replace('%', String(id))],
    ]),
  fc
    .constantFrom('keepalive', 'idle-timeout', 'disconnect', 'end')
    .map((t): [string, string][] => [['type', JSON.stringify(t)]]),
  fc.constant(null),
);

/** `{"k":v,...}`: members in the given order (duplicates allowed), maybe with whitespace. */
const lineText: fc.Arbitrary<string> = fc
  .tuple(
    head,
    fc.constantFrom(...TYPES),
    fc.array(fc.tuple(fc.constantFrom(...KEYS), valueText), { maxLength: 5 }),
    fc.constantFrom('', '', '', ' '),
  )
  .map(([first, type, members, ws]) => {
    const all = first ? [...first, ...members] : [...members, ['type', JSON.stringify(type)]];
    return `{${all.map(([k, v]) => `${ws}"${k}":${ws}${v}`).join(',')}}`;
  });

/** One character deleted, replaced or inserted at a random place. */
const mutated: fc.Arbitrary<string> = fc
  .tuple(
    lineText,
    fc.nat(),
    fc.constantFrom('delete', 'replace', 'insert'),
    fc.constantFrom(...'{}[]":,0159-.e\\ a'.split('')),
  )
  .map(([text, at, how, c]) => {
    const i = at % (text.length + 1);
    if (how === 'delete') return text.slice(0, i) + text.slice(i + 1);
    if (how === 'replace') return text.slice(0, i) + c + text.slice(i + 1);
    return text.slice(0, i) + c + text.slice(i);
  });

const anyLine = fc.oneof({ weight: 3, arbitrary: lineText }, { weight: 1, arbitrary: mutated });

/**
 * A line in the fast path's own form but for a key its kind reads given twice (`"id"` or
 * `"stream"` of an event, `"type"` of any line), written last: `JSON.parse` takes the last one,
 * so a pattern that lets the line through reads the wrong value. Among `anyLine`'s lines that is
 * rare: the kill of a pattern that lets a duplicate id through took up to 2093 of its 5000 runs
 * over 200 seeds. Drawn on its own, beside `anyLine`, it meets every run.
 */
const duplicated: fc.Arbitrary<string> = fc
  .tuple(
    head.filter((h) => h !== null),
    fc.array(fc.tuple(fc.constantFrom(...KEYS), valueText), { maxLength: 2 }),
    fc.constantFrom('id', 'stream', 'type'),
    fc.oneof(
      fc.nat({ max: 5000 }).map(String),
      fc.constantFrom(...TYPES).map((t) => `"${t}"`),
    ),
  )
  .map(([first, members, key, value]) => {
    const all = [...first, ...members, [key, value]];
    return `{${all.map(([k, v]) => `"${k}":${v}`).join(',')}}`;
  });

/**
 * A line in the fast path's own form but for one string, as a value or in a flat object, that
 * `JSON.parse` decodes (an escape) or refuses (a bad escape, a raw tab). Among `anyLine`'s lines
 * that is rare too: a pattern that takes strings with escapes survived all 5000 runs for 11 of
 * 200 seeds.
 */
const escaped: fc.Arbitrary<string> = fc
  .tuple(
    head.filter((h) => h !== null),
    fc.constantFrom('t', 'kind', 'data', 'cursor', 'x_1'),
    fc.constantFrom('"bad \\x escape"', '"raw\ttab"', '"a\\"b"', '"\\u0061"', '"x\\ny"', '"\\\\"'),
    fc.boolean(),
  )
  .map(([first, key, value, nested]) => {
    const all = [...first, [key, nested ? `{"a":${value}}` : value]];
    return `{${all.map(([k, v]) => `"${k}":${v}`).join(',')}}`;
  });

/** What the agreement property reads: mostly `anyLine`, and the two rare kinds in every run. */
const checkedLine = fc.oneof(
  { weight: 8, arbitrary: anyLine },
  { weight: 1, arbitrary: duplicated },
  { weight: 1, arbitrary: escaped },
);

/** The full path's answer: the line, or the error message. */
function viaJson(text: string): unknown {
  try {
    return parseTraceLineViaJson(text, 1);
  } catch (e) {
    return { error: (e as Error).message };
  }
}

type FastPath = (text: string) => unknown;

/** The fast path takes only lines that the full path reads the same. */
const agrees = (fast: FastPath) =>
  fc.property(checkedLine, (text) => {
    const taken = fast(text);
    if (taken !== null) expect(taken).toEqual(viaJson(text));
  });

const killed = (fast: FastPath) =>
  fc.check(agrees(fast), { ...params(5000), numRuns: 5000, verbose: 0 }).failed;

describe('common lines: fast path and JSON.parse agree', () => {
  it('every line the fast path takes parses the same through JSON.parse', () => {
    fc.assert(
      agrees((text) => parseCommonLine(text)),
      params(5000),
    );
  });

  it('the generated lines put the fast path to work (it takes a fair share of them)', () => {
    const sample = fc.sample(anyLine, { seed: params(1).seed, numRuns: 2000 });
    const taken = sample.filter((text) => parseCommonLine(text) !== null).length;
    // About 11% of the generated lines are common ones (189 to 259 of 2000 over 300 seeds):
    // the bound is half that, so that no seed fails it while a fast path that takes (almost)
    // nothing still does. 200 failed one seed in some dozens (seed 1024581157 took 196).
    expect(taken).toBeGreaterThan(100);
    expect(taken).toBeLessThan(1800);
  });

  it('the fast path takes the lines of a long stream (events with ids, keepalives)', () => {
    const lines = [
      '{"type":"event","id":41,"t":15,"kind":"progress","data":{"done":1}}',
      '{"type":"event","id":0}',
      '{"type":"event","id":7,"data":""}',
      '{"type":"keepalive","t":75}',
      '{"type":"idle-timeout"}',
      '{"type":"end"}',
      '{"type":"disconnect","t":1}',
    ];
    for (const text of lines) {
      expect(parseCommonLine(text)).not.toBeNull();
      expect(parseTraceLine(text, 2)).toEqual(parseTraceLineViaJson(text, 2));
    }
  });

  it('leaves to JSON.parse what it cannot read alone', () => {
    for (const text of [
      '{"type":"event","id":1,"id":2}', // duplicate key: the last one counts
      '{"type":"event","id":1,"stream":"a"}',
      '{"type":"event","id":"5"}',
      '{"type":"event","id":007}',
      '{"type":"event","id":1,"data":{"a":{"b":1}}}',
      '{"type":"keepalive","type":"event","id":3}',
      '{ "type":"keepalive"}',
      '\ufeff{"type":"keepalive"}',
      '{"type":"reconnect","cursor":4}',
    ]) {
      expect(parseCommonLine(text)).toBeNull();
    }
  });

  it('time stamps are read on the full path (a proof budget reads t)', () => {
    const text = '{"type":"keepalive","t":75}';
    expect(parseTraceLine(text, 1, undefined, true)).toEqual({ type: 'keepalive', t: 75 });
  });
});

describe('the agreement property kills wrong fast paths', () => {
  const mutant = (event: string, bare: string) =>
    ((text: string) =>
      parseCommonLine(text, new RegExp(event), new RegExp(bare))) satisfies FastPath;

  it('kills an event pattern that lets a duplicate id through', () => {
    const source = EVENT_LINE.source.replace('type|id|stream', 'type|stream');
    expect(source).not.toBe(EVENT_LINE.source);
    expect(killed(mutant(source, BARE_LINE.source))).toBe(true);
  });

  it('kills an event pattern that reads ids with leading zeros', () => {
    const source = EVENT_LINE.source.replace('(0|[1-9]\\d{0,14})', '(\\d{1,15})');
    expect(source).not.toBe(EVENT_LINE.source);
    expect(killed(mutant(source, BARE_LINE.source))).toBe(true);
  });

  it('kills a bare pattern that lets a second type through', () => {
    const source = BARE_LINE.source.replace('(?:type)', '(?:kind)');
    expect(source).not.toBe(BARE_LINE.source);
    expect(killed(mutant(EVENT_LINE.source, source))).toBe(true);
  });

  it('kills a fast path that takes values with escapes', () => {
    const event = EVENT_LINE.source.replaceAll('"[\\w.:-]*"', '"[^"]*"');
    expect(event).not.toBe(EVENT_LINE.source);
    expect(killed(mutant(event, BARE_LINE.source))).toBe(true);
  });
});
