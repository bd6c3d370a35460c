/**
 * One set of numbers for the founding incident (issue 39, T2): cursor 41, a 64-event ring, head
 * 130, so the ring held 67..130, 42..66 were evicted and 42..129 never reached the client. They
 * come from model/founding-incident.ts; this test holds the world's run, the CLI's story and
 * every page to it. The CLI once said "the 64-event ring had evicted 42..129" while the pages
 * said it held 67..130: a 64-event ring cannot do both.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import {
  FOUNDING_INCIDENT,
  INCIDENT_RANGES,
  showRange,
  type IdRange,
} from '../../model/founding-incident.js';
import { formatSeedVariants } from '../../model/seed-variants.js';
import { runWorld } from '../../model/world/property.js';
import { SEED_SCENARIOS } from '../../model/world/scenarios.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Which range a clause must name, by what it says happened to the events. */
const WORDS: { word: RegExp; range: IdRange }[] = [
  { word: /\bevict/i, range: INCIDENT_RANGES.evicted },
  { word: /\b(holds?|held)\b/i, range: INCIDENT_RANGES.held },
  { word: /\b(never (delivered|reached|arrived)|lost|skipped)\b/i, range: INCIDENT_RANGES.lost },
];

/**
 * The clauses of `text` that give the incident a range other than the one its words call for:
 * a range that starts at the cursor's successor or at the ring's floor, in a clause that says
 * evicted, held or lost.
 */
export function wrongRanges(text: string): string[] {
  const starts = new Set([INCIDENT_RANGES.evicted.from, INCIDENT_RANGES.held.from]);
  const out: string[] = [];
  for (const clause of text.replace(/\s+/g, ' ').split(/(?<=[.;:!?])\s+|,\s+|\(|\)/)) {
    for (const m of clause.matchAll(/\b(\d+)(?:\.\.| to |–)(\d+)\b/g)) {
      const from = Number(m[1]);
      const to = Number(m[2]);
      if (!starts.has(from)) continue;
      for (const { word, range } of WORDS) {
        if (!word.test(clause)) continue;
        // A clause may name the held range and the lost one together ("holds 67..130 ... 42..129
        // never delivered"): a range is wrong only when it matches none of the words present.
        const allowed = WORDS.filter((w) => w.word.test(clause)).map((w) => w.range);
        if (!allowed.some((r) => r.from === from && r.to === to))
          out.push(`${m[0]} (expected ${showRange(range)}): ${clause.trim()}`);
        break;
      }
    }
  }
  return out;
}

describe("the founding incident's numbers", () => {
  test('follow from the essay: 64 events up to 130 are 67..130; 42..66 evicted; 42..129 lost', () => {
    expect(FOUNDING_INCIDENT).toEqual({ cursor: 41, ring: 64, head: 130 });
    expect(INCIDENT_RANGES).toEqual({
      held: { from: 67, to: 130 },
      evicted: { from: 42, to: 66 },
      lost: { from: 42, to: 129 },
    });
  });

  test("the world's scenario reaches them: cursor 41, floor 67, head 130", () => {
    const s = SEED_SCENARIOS.find((x) => x.name === 'seven-minute-stall')!;
    const r = runWorld(s.cfg, s.commands).truth.reconnects[0]!;
    expect([r.cursor, r.floor, r.head]).toEqual([
      FOUNDING_INCIDENT.cursor,
      INCIDENT_RANGES.held.from,
      FOUNDING_INCIDENT.head,
    ]);
  });

  test('the CLI says them (npm start, table): held, evicted and lost', () => {
    const text = formatSeedVariants();
    expect(text).toContain(`ring held ${showRange(INCIDENT_RANGES.held)}`);
    expect(text).toContain(`${showRange(INCIDENT_RANGES.evicted)} evicted`);
    expect(text).toContain(`${showRange(INCIDENT_RANGES.lost)} never delivered`);
    expect(wrongRanges(text)).toEqual([]);
  });

  test('the reader finds the sentence the review quoted, and accepts the right ones', () => {
    expect(wrongRanges('the 64-event ring had evicted 42..129; the server answered 200')).toEqual([
      '42..129 (expected 42..66): the 64-event ring had evicted 42..129;',
    ]);
    expect(wrongRanges('the ring holds 67 to 130, 42 to 66 evicted')).toEqual([]);
    expect(wrongRanges('Events 42 to 129 were never delivered.')).toEqual([]);
    expect(wrongRanges('the ring holds 42..130')).toHaveLength(1);
  });

  test('every page, the README and the playground say them', () => {
    const pages = [
      'README.md',
      ...readdirSync(join(ROOT, 'docs'))
        .filter((f) => f.endsWith('.md'))
        .map((f) => `docs/${f}`),
      ...readdirSync(join(ROOT, 'src/playground/page'))
        .filter((f) => /\.(ts|html)$/.test(f))
        .map((f) => `src/playground/page/${f}`),
    ];
    const found = pages.flatMap((p) =>
      wrongRanges(readFileSync(join(ROOT, p), 'utf8')).map((w) => `${p}: ${w}`),
    );
    expect(found).toEqual([]);
  });
});
