/**
 * docs/runtime.md's first example (the guard in an SDK transport) type-checks as written, in
 * strict TypeScript, against the sources of `mcp-resumption/runtime` (issue 32, D6: it used a
 * `traces` it never declared).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { expect, test } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

test('the continuityGuard example of docs/runtime.md compiles', () => {
  const doc = readFileSync(`${ROOT}docs/runtime.md`, 'utf8');
  const snippet = /```ts\n([\s\S]*?)\n```/.exec(doc)![1]!;
  expect(snippet).toContain('continuityGuard(fetch');
  const dir = `${ROOT}node_modules/.cache/mcpr/`;
  mkdirSync(dir, { recursive: true });
  const file = `${dir}runtime-snippet.ts`;
  writeFileSync(
    file,
    snippet.replace("'mcp-resumption/runtime'", `'${ROOT}src/runtime/index.js'`) + '\nexport {};\n',
  );
  const program = ts.createProgram([file], {
    strict: true,
    noEmit: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    types: ['node'],
    skipLibCheck: true,
  });
  const errors = ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file?.fileName === file)
    .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  expect(errors).toEqual([]);
}, 60_000);
