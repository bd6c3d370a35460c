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
    snippet
      .replace("'mcp-resumption/runtime'", `'${ROOT}src/runtime/index.js'`)
      .replace("'mcp-resumption'", `'${ROOT}src/index.js'`) + '\nexport {};\n',
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

/**
 * The example's `judge` runs as written (issue 39, I3): the page's earlier advice,
 * `checkTrace(traces.get(stream)!)`, handed `checkTrace` the guard's line objects, which it
 * does not read (it reads JSON text lines) and threw on. The snippet is compiled to JavaScript,
 * its imports pointed at the built package (dist/), a guard's trace of one resumed stream is
 * put where `onTrace` puts it, and `judge` must return the oracle's summary.
 */
test('the example judges a guard trace with checkTrace, as written', async () => {
  const doc = readFileSync(`${ROOT}docs/runtime.md`, 'utf8');
  const snippet = /```ts\n([\s\S]*?)\n```/.exec(doc)![1]!;
  expect(snippet).toContain('async function judge(');
  const js = ts.transpileModule(snippet, {
    compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 },
  }).outputText;
  const dir = `${ROOT}node_modules/.cache/mcpr/`;
  mkdirSync(dir, { recursive: true });
  const file = `${dir}runtime-snippet-run.mjs`;
  const lines = [
    { type: 'open', status: 200, t: 0 },
    { type: 'event', id: 1, t: 1 },
    { type: 'event', id: 2, t: 2 },
    { type: 'disconnect', t: 3 },
    { type: 'reconnect', cursor: 2, t: 4 },
    { type: 'response', status: 200, t: 5 },
    { type: 'event', id: 3, t: 6 },
    { type: 'decision', outcome: 'resumed', t: 6 },
  ];
  writeFileSync(
    file,
    js
      .replace("'mcp-resumption/runtime'", `'${ROOT}dist/src/runtime/index.js'`)
      .replace("'mcp-resumption'", `'${ROOT}dist/src/index.js'`) +
      `\ntraces.set(7, ${JSON.stringify(lines)});\nexport const judged = await judge(7);\n` +
      `export const { checkTrace: oracle } = await import('${ROOT}dist/src/index.js');\n`,
  );
  const mod = (await import(`${file}?t=${Date.now()}`)) as {
    judged: { reconnects: number; verdicts: Record<string, number> };
    oracle: (lines: unknown) => Promise<unknown>;
  };
  expect(mod.judged.reconnects).toBe(1);
  expect(mod.judged.verdicts.ok).toBe(1);
  // What the page said before: the line objects themselves, which checkTrace cannot read.
  await expect(mod.oracle(lines)).rejects.toThrow();
}, 60_000);
