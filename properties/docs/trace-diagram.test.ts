/**
 * A trace as a sequence diagram (src/docs-gen/trace-diagram.ts), `diagram --trace`, and the primer's
 * diagrams per binding (src/docs-gen/primer-diagrams.ts): the arrows follow the lines, runs of events
 * fold, the event the oracle decides on stands alone with the oracle's note after it, a verdict
 * note appears only when the implementation was wrong, an episode of polls gets one note, and
 * bad input is `check`'s one-line error with exit 2.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { findBlock } from '../../model/marked-block.js';
import {
  PRIMER_BEGIN,
  PRIMER_END,
  PRIMER_TRACES,
  primerBlock,
} from '../../src/docs-gen/primer-diagrams.js';
import { traceSequenceDiagram } from '../../src/docs-gen/trace-diagram.js';
import { TraceInputError } from '../../src/trace/format.js';
import { runCli as run } from '../support/cli.js';

const corpus = (name: string) =>
  readFileSync(new URL(`../corpus/${name}.jsonl`, import.meta.url), 'utf8');

const notes = (d: string) => d.split('\n').filter((l) => l.includes('Note over C:'));

describe('traceSequenceDiagram', () => {
  test('an SSE skip: the run folded, the oracle note after the skipping event, no verdict note when the implementation agreed', async () => {
    const d = await traceSequenceDiagram(corpus('rule6-skip'));
    const lines = d.split('\n');
    expect(lines.slice(0, 3)).toEqual([
      'sequenceDiagram',
      '  participant C as client',
      '  participant S as server',
    ]);
    expect(d).toContain('  S-->>C: id 1 .. 5\n');
    expect(d).toContain('  C->>S: GET, Last-Event-ID 5\n  S-->>C: 200\n  S-->>C: id 9\n');
    const oracle = lines.findIndex((l) => l.startsWith('  Note over C: oracle: resumption-failed'));
    expect(lines[oracle - 1]).toBe('  S-->>C: id 9');
    expect(lines[oracle]).toMatch(/\(rule 6, skip\), replay gap/);
    expect(d).not.toContain('verdict on the implementation');
    expect(lines.at(-1)).toBe('  Note over C: the implementation decides: resumption-failed');
  });

  test('a task-stream skip the implementation accepted: a verdict note, in the task vocabulary', async () => {
    const d = await traceSequenceDiagram(corpus('tasks-skip'));
    expect(d).toContain('  Note over C,S: binding mcp-tasks\n');
    expect(d).toContain('  C->>S: tasks/stream task-123, no after\n');
    expect(d).toContain('  S-->>C: event seq 0 .. 5 (task-123)\n');
    expect(d).toContain('  C->>S: tasks/stream task-123, after 5\n');
    expect(d).toContain('  Note over C: verdict on the implementation: unsafe-accept');
    // The verdict comes after the decision it judges (C7: it was drawn before it).
    const ls = d.split('\n');
    const decides = ls.findIndex((l) => l.includes('the implementation decides: resumed'));
    const verdict = ls.findIndex((l) => l.includes('verdict on the implementation'));
    expect(decides).toBeGreaterThan(0);
    expect(verdict).toBeGreaterThan(decides);
  });

  test('duplicates stay apart from the successor that proves the resume', async () => {
    const d = await traceSequenceDiagram(corpus('tasks-duplicates-then-successor'));
    expect(d).toContain(
      '  S-->>C: event seq 3 .. 5 (task-123)\n  S-->>C: event seq 6 (task-123)\n  Note over C: oracle: resumed',
    );
  });

  test('events_gone as HTTP 410 is drawn with its floor and judged resumption-failed', async () => {
    const d = await traceSequenceDiagram(corpus('tasks-events-gone-410'));
    expect(d).toContain('  S-->>C: events_gone, earliestSeq 100 (HTTP 410)\n');
    expect(notes(d)[0]).toMatch(/oracle: resumption-failed \(rule 5/);
  });

  test('an episode of polls gets one oracle note, at its last reconnect', async () => {
    const d = await traceSequenceDiagram(corpus('poll-then-skip'));
    expect(notes(d).filter((n) => n.includes('oracle:'))).toHaveLength(1);
    expect(d).toMatch(/S-->>C: id 9\n {2}Note over C: oracle: resumption-failed[^\n]*poll 2 of 2/);
  });

  test('characters Mermaid would misread are replaced', async () => {
    const d = await traceSequenceDiagram(
      '{"type":"open","status":200}\n{"type":"event","id":1,"stream":"a;b#<c>"}\n',
    );
    expect(d).toContain('S-->>C: id 1 (a,bno. ‹c›)');
  });

  test('bad input rejects with check’s error, naming the line', async () => {
    await expect(
      traceSequenceDiagram('{"type":"open","status":200}\n{"type":"nope"}\n'),
    ).rejects.toThrow(TraceInputError);
    await expect(
      traceSequenceDiagram('{"type":"open","status":200}\n{"type":"nope"}\n'),
    ).rejects.toThrow(/^line 2: /);
  });
});

describe('diagram --trace', () => {
  test('prints the diagram of a corpus trace, under the binding its head names', async () => {
    const r = await run(['diagram', '--trace', 'properties/corpus/tasks-skip.jsonl']);
    expect(r.code).toBe(0);
    expect(r.out).toBe((await traceSequenceDiagram(corpus('tasks-skip'))) + '\n');
  });

  test('bad input and bad options: one line, exit 2', async () => {
    for (const [argv, re] of [
      [
        ['diagram', '--trace', 'properties/corpus/bad-missing-type.jsonl'],
        /line 2: a trace line needs a "type"/,
      ],
      [['diagram', '--trace', '/nonexistent/trace.jsonl'], /cannot read/],
      [
        ['diagram', '--trace', 'properties/corpus/rule6-skip.jsonl', '--binding', 'grpc'],
        /unknown --binding/,
      ],
      [['diagram', '--binding', 'mcp-tasks'], /--binding goes with --trace/],
      [['diagram', '--trace', 'properties/corpus/rule6-skip.jsonl', '--simple'], /goes alone/],
    ] as const) {
      const r = await run([...argv]);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.err.trim().split('\n'), argv.join(' ')).toHaveLength(1);
      expect(r.err).toMatch(re);
    }
  });
});

describe('docs/primer.md, one sequence diagram per binding', () => {
  test('one trace per binding the project models', () => {
    expect(PRIMER_TRACES.map((p) => p.binding).sort()).toEqual(['mcp-sse', 'mcp-tasks']);
  });

  test('the committed block is what `npm run docs:primer` generates', async () => {
    const doc = readFileSync(new URL('../../docs/primer.md', import.meta.url), 'utf8');
    const committed = findBlock(doc, PRIMER_BEGIN, PRIMER_END);
    expect(committed, 'docs/primer.md is stale: run `npm run docs:primer`').toBe(
      (await primerBlock()).text,
    );
  });
});
