/**
 * Timelines as Mermaid sequence diagrams: every statement is one Mermaid reads (participants,
 * messages, notes, with text that cannot end a statement early), for any generated world; the
 * seven-minute stall folds its runs into notes and stays short. That each one also renders in
 * a browser is checked by properties/docs/mermaid-render.test.ts.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { runWorld } from '../../model/world/property.js';
import { SEED_SCENARIOS } from '../../model/world/scenarios.js';
import { mermaidText, sequenceDiagram } from '../../model/world/sequence-diagram.js';
import { announceSeed } from '../support/seed.js';
import { recordedArb } from './recorded.js';
import { runs } from './helpers.js';

const SEED = announceSeed('properties/world/sequence-diagram.test.ts');

/** Text in a message or note: no `;` (ends a statement), `#` (entity code), `<`/`>` (HTML). */
const TEXT = String.raw`[^;#<>\n]+`;
const STATEMENT = new RegExp(
  [
    String.raw`^ {2}participant [CSL] as (client|server|event log)$`,
    String.raw`^ {2}[CSL](->>|-->>|--x)[CSL]: ${TEXT}$`,
    String.raw`^ {2}Note over (C|S|L|S,L|C,L): ${TEXT}$`,
  ].join('|'),
);

/** The statements of a diagram that Mermaid would not read as meant. */
function badStatements(diagram: string): string[] {
  const [head, ...rest] = diagram.split('\n');
  return [
    ...(head === 'sequenceDiagram' ? [] : [head!]),
    ...rest.filter((l) => !STATEMENT.test(l)),
  ];
}

describe('sequence diagrams', () => {
  test('every statement of a generated world is well formed', () => {
    fc.assert(
      fc.property(recordedArb, ({ world }) => {
        expect(badStatements(sequenceDiagram(world))).toEqual([]);
      }),
      { seed: SEED, numRuns: runs(300) },
    );
  });

  test('the check has teeth: unescaped text and a stray line are caught', () => {
    expect(badStatements('sequenceDiagram\n  Note over C: a; b')).toHaveLength(1);
    expect(badStatements('sequenceDiagram\n  C->>S: #1')).toHaveLength(1);
    expect(badStatements('graph TD')).toEqual(['graph TD']);
    expect(mermaidText('gap; skip #2 <b>')).toBe('gap, skip no. 2 ‹b›');
  });

  test('the seven-minute stall folds its runs and ends with what the client surfaced', () => {
    const s = SEED_SCENARIOS.find((x) => x.name === 'seven-minute-stall')!;
    const d = sequenceDiagram(runWorld(s.cfg, s.commands, {}, { record: true }));
    console.log(d);
    expect(d.split('\n').length).toBeLessThan(40);
    expect(d).toContain('  S-->>C: events 1..41 (41) arrive');
    expect(d).toMatch(/Note over C,L: 5:28-6:57 events 42\.\.130 \(89\) emitted, none arrive/);
    expect(d).toContain('  C->>S: 6:58 GET, Last-Event-ID 41');
    expect(d).toContain('  L-->>S: holds 67..130');
    expect(d).toContain('  S-->>C: 200, replays 130');
    expect(d).toMatch(/Note over C: resumption-failed: replay gap: expected event id 42, got 130/);
  });
});
