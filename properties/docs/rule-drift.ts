/**
 * Reads the decisions docs/spec.md states, and finds a restatement elsewhere that differs: a
 * reason code put under another rule, or after another outcome, than spec.md's. spec.md's
 * decisions are read from its rule sections ("### Rule n: title"): every reason code in
 * backticks there belongs to rule n, and gives the outcome named last before it in its sentence.
 * A restatement is read the same way: in a sentence, the rule named last before a code, and the
 * outcome named last before it, must be one spec.md gives that code. A table row is read for its
 * rule only: its last cell when that is a rule number, else the rule its text names before the
 * code. A sentence that names no rule or no outcome before a code restates nothing about it.
 */
import type { Outcome, ReasonCode } from '../../model/outcomes.js';
import { RULE_OF } from '../../model/rules.js';

/** Every reason code, longest first so that `unproven-data` is not read as `unproven`. */
export const CODES: readonly ReasonCode[] = (Object.keys(RULE_OF) as ReasonCode[]).sort(
  (a, b) => b.length - a.length,
);

/** What spec.md decides for one reason code. */
export interface CodeDecision {
  /** The rules whose sections name the code. */
  rules: Set<number>;
  /** The outcomes spec.md names before the code. */
  outcomes: Set<Outcome>;
}

/** One restatement that differs from spec.md. */
export interface Drift {
  code: ReasonCode;
  /** What differs: `rule 6` where spec.md says rule 0, or an outcome. */
  says: string;
  spec: string;
  sentence: string;
}

const OUTCOME_WORD =
  /(?<![\w-])(resumption-failed|session-lost|resumed|delayed|fails|failed|fail)(?![\w-])/g;

const outcomeOf = (word: string): Outcome =>
  word === 'fails' || word === 'failed' || word === 'fail'
    ? 'resumption-failed'
    : (word as Outcome);

/** The code occurrences of a text: in backticks in markdown, in parentheses in plain text. */
function codesIn(text: string, bare: boolean): { code: ReasonCode; at: number }[] {
  const alternatives = CODES.map((c) => c.replace(/-/g, '\\-')).join('|');
  // In plain text a code is a word in parentheses, alone or after a comma or semicolon: the
  // same words elsewhere (`unproven`, `break`) are prose.
  const re = bare
    ? new RegExp(`(?<=\\((?:[^()]*[,;] )?)(${alternatives})(?![\\w-])`, 'g')
    : new RegExp('`(' + alternatives + ')`', 'g');
  return [...text.matchAll(re)].map((m) => ({ code: m[1] as ReasonCode, at: m.index }));
}

/** The last match of `re` in `text` (global), or `undefined`. */
function lastMatch(re: RegExp, text: string): RegExpMatchArray | undefined {
  return [...text.matchAll(re)].at(-1);
}

/** Sentences: split at a full stop or semicolon-free sentence end, list items and lines of tables. */
function sentences(text: string): string[] {
  return text
    .replace(/```[\s\S]*?```/g, '\n\n')
    .split(/\n\s*\n|\n(?=\s*(?:[-*]|\d+\.)\s)|\n(?=\|)|(?<=\.)\s+(?=[A-Z`(])/)
    .map((s) => s.replace(/\s+/g, ' ').trim())
    .filter((s) => s !== '');
}

/** spec.md's decision for every code its rule sections name. */
export function specDecisions(spec: string): Map<ReasonCode, CodeDecision> {
  const out = new Map<ReasonCode, CodeDecision>();
  const heads = [...spec.matchAll(/^### Rule (\d+): .*$/gm)];
  heads.forEach((h, i) => {
    const n = Number(h[1]);
    const end = heads[i + 1]?.index ?? spec.indexOf('\n## ', h.index);
    for (const sentence of sentences(spec.slice(h.index, end))) {
      for (const { code, at } of codesIn(sentence, false)) {
        const d = out.get(code) ?? { rules: new Set<number>(), outcomes: new Set<Outcome>() };
        d.rules.add(n);
        const word = lastMatch(OUTCOME_WORD, sentence.slice(0, at));
        if (word) d.outcomes.add(outcomeOf(word[1]!));
        out.set(code, d);
      }
    }
  });
  return out;
}

/**
 * The restatements in `text` that differ from `decisions`. `bare`: the text is plain (a CLI
 * message), so codes are read without backticks.
 */
export function driftsIn(
  text: string,
  decisions: Map<ReasonCode, CodeDecision>,
  bare = false,
): Drift[] {
  const drifts: Drift[] = [];
  for (const sentence of sentences(text)) {
    // A table row whose last cell is a rule number states that rule for every code in it.
    const cells = sentence.startsWith('|') ? sentence.split('|').slice(1, -1) : [];
    const rowRule = /^\s*\[?(\d+)(?:\]\([^)]*\))?\s*$/.exec(cells.at(-1) ?? '')?.[1];
    // A table row says how something applies a rule, not what the rule decides: a row is read
    // for its rule only (its rule cell, else a rule its text names before the code).
    for (const { code, at } of codesIn(sentence, bare)) {
      const d = decisions.get(code);
      if (d === undefined) continue;
      const before = sentence.slice(0, at);
      const ruleSaid = rowRule ?? lastMatch(/\brule (\d+)/gi, before)?.[1];
      if (ruleSaid !== undefined && !d.rules.has(Number(ruleSaid)))
        drifts.push({
          code,
          says: `rule ${ruleSaid}`,
          spec: `rule ${[...d.rules].join(' or ')}`,
          sentence,
        });
      const word = cells.length > 0 ? undefined : lastMatch(OUTCOME_WORD, before);
      if (word && d.outcomes.size > 0 && !d.outcomes.has(outcomeOf(word[1]!)))
        drifts.push({
          code,
          says: outcomeOf(word[1]!),
          spec: [...d.outcomes].join(' or '),
          sentence,
        });
    }
  }
  return drifts;
}
