/**
 * docs/conformance.md stays true to the code: the tool contract block is the schemas the
 * harness exports, every option `conformance --help` lists is documented, and every scenario
 * has a row in the scenarios table.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { conformanceCommand } from '../../src/commands/conformance.js';
import { SCENARIOS } from '../../src/conformance/scenarios.js';
import { TOOL_INPUT_SCHEMAS } from '../../src/conformance/tool.js';

const DOC = fileURLToPath(new URL('../../docs/conformance.md', import.meta.url));

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
