/**
 * docs/trace-format.md stays true: its `--json` example is what `check --json` prints for the
 * trace shown beside it (an example that cannot happen, such as a cursor ahead without a
 * second reconnect, fails here).
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { runCli } from '../support/cli.js';

const DOC = fileURLToPath(new URL('../../docs/trace-format.md', import.meta.url));

function blockAfter(doc: string, marker: string): string {
  const at = doc.indexOf(marker);
  expect(at, marker).toBeGreaterThanOrEqual(0);
  const m = /```json\n([\s\S]*?)\n```/.exec(doc.slice(at));
  expect(m, `a json block after ${marker}`).not.toBeNull();
  return m![1]!;
}

test('the --json example is the report of the trace beside it', async () => {
  const doc = await readFile(DOC, 'utf8');
  const trace = blockAfter(doc, '<!-- json-example:trace -->');
  const report = JSON.parse(blockAfter(doc, '<!-- json-example:report -->')) as unknown;
  const r = await runCli(['check', '--json', '-'], trace + '\n');
  expect(r.err).toBe('');
  expect(JSON.parse(r.out)).toEqual(report);
  // It shows every part of the report at least once.
  const j = report as { breaks: unknown[]; cursorAhead: unknown[]; reconnects: unknown[] };
  expect(j.breaks.length).toBeGreaterThan(0);
  expect(j.cursorAhead.length).toBeGreaterThan(0);
  expect(j.reconnects.length).toBeGreaterThan(1);
});
