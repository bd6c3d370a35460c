/**
 * A binding line is read as JSON, escapes included: `{"type":"bin\u0064ing",…}` on line 1 is
 * the binding line `{"type":"binding",…}`. The header test used to look for the raw text
 * `"binding"` first and so refused the escaped form as "a binding line must be the first line".
 */
import { expect, test } from 'vitest';
import { checkTrace } from '../../src/trace/check.js';
import { runCli } from '../support/cli.js';

const TASK_TRACE = [
  '{"type":"tasks/stream","taskId":"t1"}',
  '{"type":"tasks/event","taskId":"t1","seq":0}',
  '{"type":"tasks/result","taskId":"t1"}',
];

test.each([
  ['"bin\\u0064ing"', '{"type":"bin\\u0064ing","name":"mcp-tasks"}'],
  ['an escaped key and name', '{"\\u0074ype":"binding","name":"mcp-t\\u0061sks"}'],
  ['an escaped slash elsewhere', '{"type":"binding","name":"mcp-tasks","note":"a\\/b"}'],
])('a binding line with a JSON escape (%s) on line 1 is the binding line', async (_w, line) => {
  const escaped = await checkTrace([line, ...TASK_TRACE]);
  const plain = await checkTrace(['{"type":"binding","name":"mcp-tasks"}', ...TASK_TRACE]);
  expect(escaped).toEqual(plain);
});

test('check and diagram read the escaped binding line from a file too', async () => {
  const { mkdtempSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const file = join(mkdtempSync(join(tmpdir(), 'mcpr-bind-')), 't.jsonl');
  writeFileSync(file, ['{"type":"bin\\u0064ing","name":"mcp-tasks"}', ...TASK_TRACE].join('\n'));
  const check = await runCli(['check', file]);
  expect(check.err).toBe('');
  const diagram = await runCli(['diagram', '--trace', file]);
  expect(diagram.err).toBe('');
  expect(diagram.out).toMatch(/binding mcp-tasks/);
});
