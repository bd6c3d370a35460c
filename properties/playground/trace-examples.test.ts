/**
 * The playground's example traces are copies of corpus traces (the page runs in the browser,
 * without the files): each copy must equal its file, and each binding must have examples.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { BINDING_NAMES } from '../../model/bindings/index.js';
import { TRACE_EXAMPLES } from '../../src/playground/trace-examples.js';

describe('the trace panel’s examples', () => {
  test.each(TRACE_EXAMPLES.map((e) => [e.name, e] as const))(
    '%s equals its corpus file',
    (name, e) => {
      const file = readFileSync(new URL(`../corpus/${name}.jsonl`, import.meta.url), 'utf8');
      expect(e.text, `src/playground/trace-examples.ts: ${name} differs from its corpus file`).toBe(
        file,
      );
    },
  );

  test('every binding has examples, under its own binding', () => {
    for (const b of BINDING_NAMES)
      expect(TRACE_EXAMPLES.filter((e) => e.binding === b).length, b).toBeGreaterThan(3);
    // A trace of another binding than mcp-sse names it on its binding line.
    for (const e of TRACE_EXAMPLES) {
      const named = /^\{"type":"binding","name":"([^"]+)"[,}]/.exec(e.text)?.[1] ?? 'mcp-sse';
      expect(named, e.name).toBe(e.binding);
    }
  });
});
