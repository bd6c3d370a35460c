/**
 * The rules of the decision boundary, named for people: one line each, the title of its
 * section in docs/spec.md (the normative text) and that section's anchor, and which reason code
 * belongs to which rule. The machine encodes the rules; this file only names them. It is the
 * one source of every restatement outside spec.md: `mcp-resumption table` prints it, the block
 * "rules" of docs/model.md is generated from it (`npm run docs:diagram`), and
 * properties/docs/rules-once.test.ts holds its titles, codes and outcomes equal to spec.md's.
 */
import type { ReasonCode } from './outcomes.js';

/** One rule: its number, its title and anchor in docs/spec.md, and its decision in one line. */
export interface RuleStatement {
  /** The rule's number: rule 0, then rules 1-7, in the order they apply. */
  readonly n: number;
  /** The title of its section in docs/spec.md ("Rule n: title"). */
  readonly title: string;
  /** The section's anchor in docs/spec.md. */
  readonly anchor: string;
  /** The decision in one line: each reason code follows the outcome it gives. */
  readonly summary: string;
}

/** Where the rules are stated: the normative page and its section. */
export const SPEC_RULES = 'docs/spec.md#the-rules';

/** GitHub's anchor of a spec.md heading "Rule n: title". */
function anchorOf(n: number, title: string): string {
  return `rule-${n}-${title
    .toLowerCase()
    .replace(/[^a-z0-9 -]/g, '')
    .replace(/ /g, '-')}`;
}

const rule = (n: number, title: string, summary: string): RuleStatement => ({
  n,
  title,
  anchor: anchorOf(n, title),
  summary,
});

/** The rules, in the order they apply: `RULE_STATEMENTS[n]` is rule n. */
export const RULE_STATEMENTS: readonly RuleStatement[] = [
  rule(
    0,
    'no cursor, no resumption',
    'resumption-failed at once for a reconnect without Last-Event-ID (no-cursor; cursor-dropped once an event was received on the stream), and for a reconnect of a tainted stream: id-less data delivered and no event received since, a failed reconnect included (idless-data)',
  ),
  rule(
    1,
    'no answer',
    'no answer before the connection drops, the stream ends, P runs out or the client reconnects again: resumption-failed (no-response)',
  ),
  rule(2, 'session gone', '404 or 410: session-lost (session-gone); re-initialize'),
  rule(
    3,
    'any other status',
    'any status other than 200, 404 and 410, a 405 and a redirect included: resumption-failed (bad-status)',
  ),
  rule(
    4,
    're-created session',
    'the answer says the session is not durable, or states another session epoch: resumption-failed (not-durable, epoch-changed)',
  ),
  rule(
    5,
    'cursor below the floor',
    'status and headers first (rules 2-4), then the first block only (a comment is not a block); a declared floor F with c < F-1: resumption-failed (cursor-below-floor), events c+1..F-1 are gone; a stated head H < c: resumption-failed (head-behind); H = c: resumed (caught-up), nothing is owed, no clock fails it, and the next event must be c+1',
  ),
  rule(
    6,
    'the first event decides',
    'the first event: another stream, resumption-failed (cross-stream); c+1, resumed (successor); at or below c, resumption-failed (rewind); above c+1, resumption-failed (skip); id-less data before it, resumption-failed (unproven-data); an opaque id, resumption-failed (unproven); later, on an accepted stream, a non-successor fails it (break)',
  ),
  rule(
    7,
    'no event yet',
    "a floor F <= c+1 with no event yet: delayed (floor-covers) while the stream is open, for at most P from the episode's first reconnect; no floor: unproven, and a clean end is a poll (reconnect with the same cursor, same episode); a disconnect while unproven, or P running out while unproven or delayed: resumption-failed (unproven)",
  ),
];

/** The rules in words, in the order they apply: `RULES[n]` is rule n. */
export const RULES: readonly string[] = RULE_STATEMENTS.map((r) => `${r.title}: ${r.summary}`);

/** The rule each reason code belongs to (`break`, continuity after acceptance, counts as rule 6). */
export const RULE_OF: Record<ReasonCode, number> = {
  'no-response': 1,
  'session-gone': 2,
  'bad-status': 3,
  'not-durable': 4,
  'epoch-changed': 4,
  'cursor-below-floor': 5,
  'head-behind': 5,
  'caught-up': 5,
  successor: 6,
  skip: 6,
  rewind: 6,
  'cross-stream': 6,
  'unproven-data': 6,
  'floor-covers': 7,
  unproven: 7,
  break: 6,
  'cursor-dropped': 0,
  'no-cursor': 0,
  'idless-data': 0,
};

/** The begin marker of the rules block of docs/model.md. */
export const RULES_BEGIN = '<!-- rules: generated from model/rules.ts by npm run docs:diagram -->';
/** The end marker of the rules block of docs/model.md. */
export const RULES_END = '<!-- rules: end -->';

/**
 * The rules block of docs/model.md: each rule's title, linked to its section of spec.md, and its
 * one-line decision.
 */
export function rulesBlock(): string {
  const lines = RULE_STATEMENTS.map(
    (r) => `${r.n}. [**${r.title}**](spec.md#${r.anchor}): ${r.summary}.`,
  );
  return [RULES_BEGIN, '', ...lines, '', RULES_END].join('\n');
}
