/**
 * docs/conformance.md stays true to the code: the tool contract block is the schemas the
 * harness exports, every option `conformance --help` lists is documented, every scenario has a
 * row in the scenarios table, "Test your own server" comes first, and the generated cells live
 * in the appendix docs/conformance-cells.md, which the npm scripts (and `--write`) target.
 */
import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { conformanceCommand } from '../../src/commands/conformance.js';
import { SCENARIOS } from '../../src/conformance/scenarios/index.js';
import { TOOL_INPUT_SCHEMAS } from '../../src/conformance/tool.js';
import { runCli } from '../support/cli.js';

const DOC = fileURLToPath(new URL('../../docs/conformance.md', import.meta.url));
const CELLS = fileURLToPath(new URL('../../docs/conformance-cells.md', import.meta.url));
const PACKAGE = fileURLToPath(new URL('../../package.json', import.meta.url));
const FETCH_ADAPTER = fileURLToPath(new URL('./fixtures/fetch-server-adapter.ts', import.meta.url));

function block(doc: string, name: string): string {
  const begin = doc.indexOf(`<!-- ${name}:begin`);
  const end = doc.indexOf(`<!-- ${name}:end -->`);
  expect(begin, `${name} markers`).toBeGreaterThanOrEqual(0);
  expect(end).toBeGreaterThan(begin);
  return doc.slice(begin, end);
}

test('the tool contract block is TOOL_INPUT_SCHEMAS', async () => {
  const doc = await readFile(DOC, 'utf8');
  const m = /```json\n([\s\S]*?)\n```/.exec(block(doc, 'tool-contract'));
  expect(m).not.toBeNull();
  expect(JSON.parse(m![1]!)).toEqual(TOOL_INPUT_SCHEMAS);
});

test('every option of conformance --help is in the options table', async () => {
  const doc = await readFile(DOC, 'utf8');
  // Options are the help's lines that start with one (examples may quote other tools' flags).
  const options = [
    ...new Set([...conformanceCommand.help.matchAll(/^ {2}(--[a-z][a-z-]+)/gm)].map((m) => m[1]!)),
  ];
  expect(options.length).toBeGreaterThan(15);
  const table = doc.slice(doc.indexOf('### Options'));
  for (const o of options) expect(table, o).toContain(`| \`${o}`);
});

test('every scenario has a row in the scenarios table', async () => {
  const doc = await readFile(DOC, 'utf8');
  for (const s of SCENARIOS) expect(doc, s.name).toMatch(new RegExp(`^\\| ${s.name} +\\|`, 'm'));
});

test('"Test your own server" comes first, within the first 120 lines', async () => {
  const lines = (await readFile(DOC, 'utf8')).split('\n');
  const at = lines.findIndex((l) => l === '## Test your own server');
  expect(at).toBeGreaterThan(0);
  expect(at).toBeLessThan(120);
  expect(lines.slice(0, at).filter((l) => l.startsWith('## '))).toEqual([]);
  for (const topic of ['--url', '--adapter', 'serveFetch', 'stateless: no session to resume']) {
    expect(lines.join('\n'), topic).toContain(topic);
  }
});

test('the generated blocks live in conformance-cells.md, and the npm scripts write there', async () => {
  const [doc, cells] = await Promise.all([readFile(DOC, 'utf8'), readFile(CELLS, 'utf8')]);
  for (const name of ['conformance', 'conformance-custom']) {
    expect(cells).toContain(`<!-- ${name}:begin`);
    expect(cells).toContain(`<!-- ${name}:end -->`);
    expect(doc).not.toContain(`<!-- ${name}:begin`);
  }
  const scripts = (
    JSON.parse(await readFile(PACKAGE, 'utf8')) as { scripts: Record<string, string> }
  ).scripts;
  expect(scripts['conformance:docs']).toContain('--write docs/conformance-cells.md');
  expect(scripts['conformance:docs:url']).toContain('--write docs/conformance-cells.md');
});

test('--write replaces the custom block of the appendix and leaves the built-in one alone', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'mcpr-cells-'));
  try {
    const copy = join(dir, 'conformance-cells.md');
    await copyFile(CELLS, copy);
    const r = await runCli([
      'conformance',
      '--adapter',
      FETCH_ADAPTER,
      '--only',
      'within-window',
      '--write',
      copy,
    ]);
    expect(r.code, r.err).toBe(0);
    const [before, after] = await Promise.all([readFile(CELLS, 'utf8'), readFile(copy, 'utf8')]);
    const custom = block(after, 'conformance-custom');
    expect(custom).toMatch(/\| fetch-server +\| 2025-11-25 +\| honored +\|/);
    expect(block(after, 'conformance')).toBe(block(before, 'conformance'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
