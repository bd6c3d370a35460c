/**
 * The ways the CLI shows a world: `--brief` and `--mermaid` on `explore` (counterexamples and
 * scenarios) and `mutants`, the `playground:` line that reproduces the world, and `diagram`
 * (simplified, scenario, --write).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runWorld } from '../../model/world/property.js';
import { SEED_SCENARIOS } from '../../model/world/scenarios.js';
import { SIMPLE_BEGIN, SIMPLE_END } from '../../src/docs-gen/diagram.js';
import { parseWorldString, subjectOf } from '../../src/explore/world-string.js';
import { runCli as run } from '../support/cli.js';

/** The timeline part of a scenario's output (between `timeline:` and `claims:`). */
const timelineOf = (out: string) => out.slice(out.indexOf('timeline:'), out.indexOf('claims:'));

describe('explore --brief and --mermaid', () => {
  test('--scenario seven-minute-stall --brief is well under 60 lines, with a legend', async () => {
    const r = await run(['explore', '--scenario', 'seven-minute-stall', '--brief']);
    expect(r.code).toBe(0);
    expect(r.out.split('\n').length).toBeLessThan(60);
    expect(r.out).toMatch(/legend: time is virtual/);
    expect(r.out).toMatch(
      /events 1\.\.41 \(41\) emitted and arrive; keepalive x21 arrive, 145 lines/,
    );
    const full = await run(['explore', '--scenario', 'seven-minute-stall']);
    expect(timelineOf(full.out).split('\n').length).toBeGreaterThan(300);
  });

  test('--scenario --mermaid prints a fenced sequence diagram instead of the text timeline', async () => {
    const r = await run(['explore', '--scenario', 'restart-404', '--mermaid']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(
      /sequence diagram:\n```mermaid\nsequenceDiagram\n {2}participant C as client/,
    );
    expect(r.out).not.toContain('timeline:');
    expect(r.out).toContain('  S-->>C: 404');
  });

  test('the playground: line is the same world', async () => {
    const r = await run([
      'explore',
      '--scenario',
      'restart-empty-200',
      '--mutant',
      'trusts-any-200',
    ]);
    const line = /^playground: (world:v1;.*)$/m.exec(r.out)![1]!;
    const spec = parseWorldString(line);
    expect(spec.client).toBe('trusts-any-200');
    const s = SEED_SCENARIOS.find((x) => x.name === 'restart-empty-200')!;
    expect(spec.commands).toEqual(s.commands);
    const w = runWorld(spec.cfg, spec.commands, subjectOf(spec), { record: true });
    expect(w.client.snap.value).toBe('delayed');
  });

  test('a counterexample is printed brief, with its playground line', async () => {
    const r = await run([
      'explore',
      '--runs',
      '2000',
      '--seed',
      '3',
      '--mutant',
      'head',
      '--brief',
    ]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/legend: time is virtual/);
    expect(r.out).toMatch(/^replay: npx mcp-resumption explore --seed 3 /m);
    expect(r.out).toMatch(/^playground: world:v1;client=model;server=head;config=/m);
  });

  test('--brief and --mermaid exclude each other (one line, exit 2)', async () => {
    const r = await run(['explore', '--scenario', 'restart-404', '--brief', '--mermaid']);
    expect(r.code).toBe(2);
    expect(r.err.trim().split('\n')).toHaveLength(1);
  });
});

describe('mutants --brief and --mermaid', () => {
  test("print every kill's counterexample after the table", async () => {
    const brief = await run(['mutants', '--only', 'trusts-any-200', '--runs', '500', '--brief']);
    expect(brief.code).toBe(0);
    expect(brief.out).toMatch(/\ntrusts-any-200:\ncounterexample \(\d+ command\(s\)\)/);
    expect(brief.out).toMatch(/legend: time is virtual/);
    const mermaid = await run([
      'mutants',
      '--only',
      'trusts-any-200',
      '--runs',
      '500',
      '--mermaid',
    ]);
    expect(mermaid.out).toMatch(/```mermaid\nsequenceDiagram\n/);
    expect(mermaid.out).toMatch(/^playground: world:v1;client=trusts-any-200;/m);
  });
});

describe('mcp-resumption diagram', () => {
  test('--simple prints the simplified diagram, --scenario a sequence diagram', async () => {
    const simple = await run(['diagram', '--simple']);
    expect(simple.out).toMatch(/^stateDiagram-v2\n {2}\[\*\] --> connecting\n/);
    expect(simple.out).toMatch(/note left of resumptionFailed/);
    const seq = await run([
      'diagram',
      '--scenario',
      'seven-minute-stall',
      '--client',
      'trusts-any-200',
    ]);
    expect(seq.out).toMatch(/^sequenceDiagram\n/);
    expect(seq.out).toContain('Note over C: complete, 52 events delivered');
  });

  test('--write fills every block a file has, and refuses a file without markers', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpr-diagram-'));
    const file = join(dir, 'doc.md');
    writeFileSync(file, `# x\n\n${SIMPLE_BEGIN}\nold\n${SIMPLE_END}\n`);
    const r = await run(['diagram', '--write', file]);
    expect(r.code).toBe(0);
    expect(readFileSync(file, 'utf8')).toMatch(
      /```mermaid\nstateDiagram-v2[\s\S]*Folded into the note/,
    );
    writeFileSync(file, '# nothing to fill\n');
    const bad = await run(['diagram', '--write', file]);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/has no generated diagram markers/);
  });

  test('bad options: one line, exit 2', async () => {
    for (const argv of [
      ['diagram', '--scenario', 'nope'],
      ['diagram', '--scenario', 'restart-404', '--client', 'nobody'],
    ]) {
      const r = await run(argv);
      expect(r.code).toBe(2);
      expect(r.err.trim().split('\n')).toHaveLength(1);
    }
  });
});
