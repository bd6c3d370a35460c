/**
 * The verdict path in its own words: which verdicts set exit status 1 (`isViolation`), and the
 * rules as the `table` command prints them (`RULES`, `RULE_OF`). The corpus holds them end to
 * end; these tables hold every case, so that a mutant of either is killed by name.
 */
import { describe, expect, test } from 'vitest';
import { OUTCOMES, type Outcome, type ReasonCode } from '../../model/outcomes.js';
import { RULES, RULE_OF } from '../../model/rules.js';
import { isViolation, VERDICTS, type Verdict } from '../../src/trace/report.js';

describe('isViolation: what sets exit status 1', () => {
  const table: [Verdict, boolean, boolean][] = [
    // verdict, violation without --strict, with --strict
    ['ok', false, false],
    ['unsafe-accept', true, true],
    ['false-alarm', false, true],
    ['misclassified', false, true],
    ['unchecked', false, false],
  ];

  test('covers every verdict once', () => {
    expect(table.map(([v]) => v)).toEqual([...VERDICTS]);
  });

  test.each(table)('%s: %s, strict %s', (verdict, plain, strict) => {
    expect(isViolation(verdict, false)).toBe(plain);
    expect(isViolation(verdict, true)).toBe(strict);
  });
});

describe('the rules in words', () => {
  /** The outcome each reason code decides (the machine's `decide` actions). */
  const OUTCOME_OF: Record<ReasonCode, Outcome> = {
    successor: 'resumed',
    'floor-covers': 'delayed',
    'session-gone': 'session-lost',
    'no-response': 'resumption-failed',
    'bad-status': 'resumption-failed',
    'not-durable': 'resumption-failed',
    'epoch-changed': 'resumption-failed',
    'cursor-below-floor': 'resumption-failed',
    'head-behind': 'resumption-failed',
    'caught-up': 'resumed',
    skip: 'resumption-failed',
    rewind: 'resumption-failed',
    'cross-stream': 'resumption-failed',
    unproven: 'resumption-failed',
    'unproven-data': 'resumption-failed',
    break: 'resumption-failed',
    'cursor-dropped': 'resumption-failed',
    'no-cursor': 'resumption-failed',
    'idless-data': 'resumption-failed',
  };

  test('rules 0 to 7, each with at least one reason code', () => {
    expect(RULES).toHaveLength(8);
    const used = new Set(Object.values(RULE_OF));
    expect([...used].sort()).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(Object.keys(RULE_OF).sort()).toEqual(Object.keys(OUTCOME_OF).sort());
  });

  test.each(Object.entries(OUTCOME_OF))(
    '%s: its rule names the outcome it decides (%s)',
    (code, outcome) => {
      expect(OUTCOMES).toContain(outcome);
      // The line names the outcome, and the code in parentheses (properties/docs/rules-once
      // holds the pairing against docs/spec.md).
      const rule = RULES[RULE_OF[code as ReasonCode]]!;
      expect(rule).toContain(outcome);
      expect(rule).toMatch(new RegExp(`[(,;] ?${code}(?![\\w-])`));
    },
  );

  test.each([
    [0, 'Last-Event-ID'],
    [1, 'no answer'],
    [2, '404 or 410'],
    [3, 'other than 200'],
    [4, 'durable'],
    [5, 'floor F with c < F-1'],
    [6, 'c+1, resumed'],
    [7, 'no event yet'],
  ])('rule %i is about %s', (n, words) => {
    expect(RULES[n]).toContain(words);
  });
});
