/**
 * conformance/ by what it is (issue 30): scenarios/, rows/, adapters/, recording/ and rendering/
 * each a folder, and no file of src/conformance/ over 500 lines, so that a reader finds a
 * scenario family, a row or a renderer in a file that can be read whole. The check is shown to
 * fail on a tree with one file a line too long.
 */
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CONFORMANCE = join(ROOT, 'src/conformance');
const MAX_LINES = 500;

/** The files under `dir` with more than {@link MAX_LINES} lines, as `path: N lines`. */
function oversized(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && statSync(join(dir, f)).isFile())
    .map((f) => ({ f, n: readFileSync(join(dir, f), 'utf8').split('\n').length - 1 }))
    .filter(({ n }) => n > MAX_LINES)
    .map(({ f, n }) => `${relative(dir, join(dir, f))}: ${n} lines`);
}

test(`no file of src/conformance/ is over ${MAX_LINES} lines`, () => {
  expect(oversized(CONFORMANCE)).toEqual([]);
});

test('the check fails on a file one line over', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcpr-size-'));
  try {
    mkdirSync(join(dir, 'rows'));
    writeFileSync(join(dir, 'rows/long.ts'), 'export const x = 1;\n'.repeat(MAX_LINES + 1));
    writeFileSync(join(dir, 'short.ts'), 'export const y = 1;\n'.repeat(MAX_LINES));
    expect(oversized(dir)).toEqual([`rows/long.ts: ${MAX_LINES + 1} lines`]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('conformance/ is laid out by what it is', () => {
  for (const folder of ['scenarios', 'rows', 'adapters', 'recording', 'rendering']) {
    expect(statSync(join(CONFORMANCE, folder)).isDirectory(), folder).toBe(true);
  }
  // The scenarios: one file per family, the SCENARIOS list in scenarios/index.ts.
  expect(readFileSync(join(CONFORMANCE, 'scenarios/index.ts'), 'utf8')).toContain(
    'export const SCENARIOS',
  );
});
