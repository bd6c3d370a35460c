/**
 * The `@example` blocks of the API reference run: each is extracted from its source comment,
 * its package imports pointed at the sources, and every line of the form
 * `expression; // literal …` turned into an assertion that the expression equals the literal.
 * An example that stops compiling, or whose commented result is wrong, fails here.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, test } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TMP = `${ROOT}properties/.api-examples/`;

const SOURCES: Record<string, string> = {
  checkTrace: 'src/trace/check.ts',
  continuityGuard: 'src/runtime/continuity-guard.ts',
  ContinuityEventStore: 'src/runtime/continuity-store.ts',
  clientMachine: 'model/client-machine.ts',
};

const ENTRIES: Record<string, string> = {
  'mcp-resumption': 'src/index.js',
  'mcp-resumption/runtime': 'src/runtime/index.js',
  'mcp-resumption/model': 'model/index.js',
  'mcp-resumption/conformance': 'src/conformance/index.js',
};

/** The code of the `@example` in the doc comment right before `name`'s declaration. */
async function exampleOf(name: string, file: string): Promise<string> {
  const src = await readFile(`${ROOT}${file}`, 'utf8');
  const decl = new RegExp(`^export (?:async )?(?:function|class|const) ${name}\\b`, 'm').exec(src);
  expect(decl, `${name} in ${file}`).not.toBeNull();
  const comment = src.slice(src.lastIndexOf('/**', decl!.index), decl!.index);
  const m = /@example\s*\n\s*\* ```ts\n([\s\S]*?)\n\s*\* ```/.exec(comment);
  expect(m, `an @example in ${name}'s doc comment`).not.toBeNull();
  return m![1]!
    .split('\n')
    .map((l) => l.replace(/^\s*\* ?/, ''))
    .join('\n');
}

/** The example as a module: imports pointed at the sources, commented results asserted. */
export function runnable(code: string, depth: string): { code: string; assertions: number } {
  let assertions = 0;
  const body = code
    .replace(/from '(mcp-resumption[^']*)'/g, (_, p: string) => `from '${depth}${ENTRIES[p]!}'`)
    .split('\n')
    .map((line) => {
      const m = /^(.+);\s*\/\/\s*('[^']*'|-?\d+(?:\.\d+)?)(?:\W.*)?$/.exec(line);
      if (!m) return line;
      assertions++;
      return `expectEqual(${m[1]}, ${m[2]}, ${JSON.stringify(m[1])});`;
    })
    .join('\n');
  const helper =
    'function expectEqual(a: unknown, b: unknown, what: string): void {\n' +
    '  if (a !== b) throw new Error(`${what}: ${JSON.stringify(a)}, not ${JSON.stringify(b)}`);\n' +
    '}\n';
  return { code: `${helper}${body}\nexport {};\n`, assertions };
}

afterAll(async () => {
  await rm(TMP, { recursive: true, force: true });
});

test.each(Object.entries(SOURCES))('the @example of %s runs', async (name, file) => {
  const { code, assertions } = runnable(await exampleOf(name, file), '../../');
  await mkdir(TMP, { recursive: true });
  const path = `${TMP}${name}.ts`;
  await writeFile(path, code);
  await import(/* @vite-ignore */ path);
  if (name === 'checkTrace' || name === 'clientMachine') expect(assertions).toBeGreaterThan(0);
});

test('a wrong commented result fails', async () => {
  const { code } = runnable(
    "import { runObservations, stateOf } from 'mcp-resumption/model';\n" +
      "stateOf(runObservations([{ type: 'OPEN', status: 200 }])); // 'resumed'",
    '../../',
  );
  await mkdir(TMP, { recursive: true });
  await writeFile(`${TMP}wrong.ts`, code);
  await expect(import(/* @vite-ignore */ `${TMP}wrong.ts`)).rejects.toThrow(/not "resumed"/);
});

/** The typedoc landing page (docs/api-landing.md): every entry linked, its example runs. */
const LANDING = `${ROOT}docs/api-landing.md`;

test('the API landing page links every entry point of package.json and has no duplicate heading', async () => {
  const page = await readFile(LANDING, 'utf8');
  const pkg = JSON.parse(await readFile(`${ROOT}package.json`, 'utf8')) as {
    exports: Record<string, unknown>;
  };
  const entries = Object.keys(pkg.exports)
    .filter((k) => k !== './package.json')
    .map((k) => (k === '.' ? 'mcp-resumption' : `mcp-resumption/${k.slice(2)}`));
  expect(entries).toHaveLength(5);
  for (const e of entries) expect(page, `{@link ${e}!}`).toContain(`{@link ${e}! |`);
  expect(page).toMatch(/the five entry points/);
  // typedoc renders the project name as the page's h1: a heading of its own would be a second.
  const headings = page.match(/^#+ .*$/gm) ?? [];
  expect(headings.some((h) => h.startsWith('# '))).toBe(false);
  expect(new Set(headings).size).toBe(headings.length);
});

test("the API landing page's example runs", async () => {
  const page = await readFile(LANDING, 'utf8');
  const m = /```ts\n([\s\S]*?)\n```/.exec(page);
  expect(m).not.toBeNull();
  expect(m![1]!.split('\n').length).toBeLessThanOrEqual(15);
  const { code, assertions } = runnable(m![1]!, '../../');
  expect(assertions).toBeGreaterThan(0);
  await mkdir(TMP, { recursive: true });
  await writeFile(`${TMP}landing.ts`, code);
  await import(/* @vite-ignore */ `${TMP}landing.ts`);
});
