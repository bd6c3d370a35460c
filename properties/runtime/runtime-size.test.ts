/**
 * A guard you can read (issue 31): no file over 500 lines and no function over 150 lines in
 * src/runtime/. Functions are found with the TypeScript compiler's own parser (declarations,
 * methods, accessors, constructors, arrow functions and function expressions). The checker is
 * shown to catch a function and a file one line over their bounds.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, test } from 'vitest';

const MAX_FILE = 500;
const MAX_FUNCTION = 150;

/** What is over the bounds in one source text: `file: N lines` and `file:line name: N lines`. */
function overBounds(file: string, text: string): string[] {
  const found: string[] = [];
  const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  if (lines > MAX_FILE) found.push(`${file}: ${lines} lines`);
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      if (end - start + 1 > MAX_FUNCTION) {
        const name = node.name?.getText(source) ?? '(anonymous)';
        found.push(`${file}:${start + 1} ${name}: ${end - start + 1} lines`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('src/runtime/ stays readable', () => {
  test(`no file over ${MAX_FILE} lines, no function over ${MAX_FUNCTION}`, () => {
    const dir = fileURLToPath(new URL('../../src/runtime/', import.meta.url));
    const over = readdirSync(dir)
      .filter((f) => f.endsWith('.ts'))
      .flatMap((f) => overBounds(f, readFileSync(join(dir, f), 'utf8')));
    expect(over).toEqual([]);
  });

  test('the check catches a function and a file one line over their bounds', () => {
    const body = Array.from({ length: MAX_FUNCTION - 1 }, (_, i) => `  const a${i} = ${i};`);
    const long = `export function long() {\n${body.join('\n')}\n}\n`;
    expect(overBounds('f.ts', long)).toEqual(['f.ts:1 long: 151 lines']);
    const method = `class C {\n  m() {\n${body.join('\n')}\n  }\n}\n`;
    expect(overBounds('c.ts', method)).toEqual(['c.ts:2 m: 151 lines']);
    expect(overBounds('g.ts', '\n'.repeat(MAX_FILE + 1))).toEqual(['g.ts: 501 lines']);
    expect(overBounds('h.ts', '\n'.repeat(MAX_FILE))).toEqual([]);
  });
});
