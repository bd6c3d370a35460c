/**
 * Rules are stated once (issue 39, review S16): docs/spec.md is the normative text, and every
 * other page or message that shows a rule either links to spec.md or is generated from
 * model/rules.ts, which this test holds equal to spec.md's decisions. A restatement that puts a
 * reason code under another rule, or after another outcome, than spec.md does fails here; the
 * last block plants such a drift in a copy of a page and shows that it fails.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { clientMachine } from '../../model/client-machine.js';
import type { Outcome, ReasonCode } from '../../model/outcomes.js';
import { RULE_OF, RULE_STATEMENTS, RULES_BEGIN, RULES_END, rulesBlock } from '../../model/rules.js';
import { findBlock } from '../../model/marked-block.js';
import { listTransitions } from '../../model/transitions.js';
import { checkCommand } from '../../src/commands/check.js';
import { renderTable } from '../../src/commands/table.js';
import { CODES, driftsIn, specDecisions, type CodeDecision } from './rule-drift.js';

const read = (page: string) => readFileSync(new URL(`../../${page}`, import.meta.url), 'utf8');
const spec = read('docs/spec.md');
const decisions = specDecisions(spec);

/** The outcome the machine gives each code it decides. */
function machineOutcomes(): Map<ReasonCode, Set<Outcome>> {
  const out = new Map<ReasonCode, Set<Outcome>>();
  for (const t of listTransitions(clientMachine))
    if (t.decides)
      out.set(t.decides.code, (out.get(t.decides.code) ?? new Set()).add(t.decides.outcome));
  return out;
}

/** How model/rules.ts and the machine differ from `d`, spec.md's decisions. */
function disagreements(d: Map<ReasonCode, CodeDecision>): string[] {
  const out: string[] = [];
  const machine = machineOutcomes();
  for (const code of CODES) {
    const s = d.get(code);
    if (s === undefined) {
      out.push(`${code}: no rule of spec.md names it`);
      continue;
    }
    if (!s.rules.has(RULE_OF[code]))
      out.push(`${code}: RULE_OF says rule ${RULE_OF[code]}, spec.md rule ${[...s.rules]}`);
    const m = [...(machine.get(code) ?? [])].sort().join();
    if (m !== [...s.outcomes].sort().join())
      out.push(`${code}: the machine decides ${m}, spec.md ${[...s.outcomes].join()}`);
  }
  return out;
}

/** The codes a rule's one-line summary names, and how it differs from spec.md's section. */
function summaryDrift(d: Map<ReasonCode, CodeDecision>): string[] {
  const out: string[] = [];
  for (const r of RULE_STATEMENTS) {
    const named = CODES.filter((c) =>
      new RegExp(`\\((?:[^()]*[,;] )?${c}(?![\\w-])`).test(r.summary),
    );
    const specCodes = CODES.filter((c) => d.get(c)?.rules.has(r.n));
    if (named.slice().sort().join() !== specCodes.slice().sort().join())
      out.push(`rule ${r.n} names ${named.join()}, spec.md's section ${specCodes.join()}`);
    for (const x of driftsIn(`Rule ${r.n}: ${r.summary}`, d, true))
      out.push(`rule ${r.n}: ${x.code} after ${x.says}, spec.md ${x.spec}`);
  }
  return out;
}

describe('spec.md states each decision once', () => {
  test('every reason code belongs to the rules spec.md names it in, with one outcome', () => {
    expect(decisions.size).toBe(CODES.length);
    for (const [code, d] of decisions) {
      expect(d.outcomes.size, code).toBe(1);
      // `unproven` is the one code two rules give: an opaque id (6.3) and no proof in time (7).
      expect(d.rules.size, code).toBe(code === 'unproven' ? 2 : 1);
    }
  });

  test('the machine and RULE_OF decide as spec.md does', () => {
    expect(disagreements(decisions)).toEqual([]);
  });
});

describe('model/rules.ts, the one source of every restated rule', () => {
  test("its titles and anchors are spec.md's rule sections", () => {
    const heads = [...spec.matchAll(/^### Rule (\d+): (.*)$/gm)].map((m) => [Number(m[1]), m[2]]);
    expect(RULE_STATEMENTS.map((r) => [r.n, r.title])).toEqual(heads);
    for (const r of RULE_STATEMENTS)
      expect(r.anchor).toMatch(new RegExp(`^rule-${r.n}-[a-z0-9-]+$`));
  });

  test("each one-line summary names exactly its section's codes, after spec.md's outcomes", () => {
    expect(summaryDrift(decisions)).toEqual([]);
  });

  test('docs/model.md holds the generated block (npm run docs:diagram)', () => {
    expect(findBlock(read('docs/model.md'), RULES_BEGIN, RULES_END)).toBe(rulesBlock());
  });

  test('`table` prints those lines and names spec.md', () => {
    const table = renderTable();
    expect(table).toContain('docs/spec.md#the-rules');
    for (const r of RULE_STATEMENTS) expect(table).toContain(`${r.n}. ${r.title}: ${r.summary}`);
  });
});

describe('no other page or message restates a decision differently', () => {
  const pages = [
    'README.md',
    ...readdirSync(new URL('../../docs/', import.meta.url))
      .filter((f) => f.endsWith('.md') && f !== 'spec.md')
      .map((f) => `docs/${f}`),
  ];

  test.each(pages)('%s', (page) => {
    expect(driftsIn(read(page), decisions)).toEqual([]);
  });

  test('check --help and table', () => {
    expect(driftsIn(checkCommand.help, decisions, true)).toEqual([]);
    expect(driftsIn(renderTable(), decisions, true)).toEqual([]);
    // S13: an id-less data block is never a keepalive.
    expect(checkCommand.help).not.toMatch(/id-less ping/);
  });
});

describe('a planted drift fails', () => {
  test('a page that puts a code under another rule', () => {
    const runtime = read('docs/runtime.md');
    const row = runtime.split('\n').find((l) => l.includes('(`idless-data`)'))!;
    const planted = runtime.replace(row, row.replace(/\|\s*0\s*\|\s*$/, '| 6    |'));
    expect(planted).not.toBe(runtime);
    expect(driftsIn(planted, decisions).map((x) => [x.code, x.says])).toEqual([
      ['cursor-dropped', 'rule 6'],
      ['idless-data', 'rule 6'],
    ]);
  });

  test('a table row whose text names another rule before a code', () => {
    const page = read('docs/trace-format.md');
    const planted = page.replace(
      '(rule 0, rule 6 `unproven-data`)',
      '(rule 0, rule 7 `unproven-data`)',
    );
    expect(planted).not.toBe(page);
    expect(driftsIn(planted, decisions).map((x) => [x.code, x.says])).toEqual([
      ['unproven-data', 'rule 7'],
    ]);
  });

  test('a page that gives a code another outcome', () => {
    const planted = read('docs/deviations.md').replace(
      'fails the reconnect (`unproven-data`)',
      'is delayed (`unproven-data`)',
    );
    expect(driftsIn(planted, decisions).map((x) => [x.code, x.says])).toEqual([
      ['unproven-data', 'delayed'],
    ]);
  });

  test('a one-line summary that drops a code, and a spec.md that moves one', () => {
    const moved = spec.replace(
      'resumption-failed (`no-response`)',
      'resumption-failed (`bad-status`)',
    );
    expect(moved).not.toBe(spec);
    const d = specDecisions(moved);
    expect(disagreements(d)).toContain('no-response: no rule of spec.md names it');
    expect(summaryDrift(d).join('\n')).toMatch(
      /^rule 1 names no-response, spec.md's section bad-status$/m,
    );
  });
});
