/**
 * docs/architecture.md's picture is the code's: the committed graph equals the one
 * `npm run docs:architecture` draws now, and a page whose graph lost an arrow is caught. Every
 * source file sits in a layer of .dependency-cruiser.cjs, so that none is left out of the rules.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SCRIPT = join(ROOT, 'properties/support/architecture.mjs');
const PAGE = join(ROOT, 'docs/architecture.md');

/** `architecture.mjs --check` on the pages (the code is cruised once): status and output. */
function check(...pages: string[]): { status: number | null; output: string } {
  const run = spawnSync(process.execPath, [SCRIPT, '--check', ...pages], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

test('the committed graph is the one the code draws, and a stale one is caught', () => {
  const doc = readFileSync(PAGE, 'utf8');
  const arrow = doc.split('\n').find((l) => l.includes(' --> '));
  expect(arrow).toBeDefined();
  const dir = mkdtempSync(join(tmpdir(), 'mcpr-architecture-'));
  try {
    const stale = join(dir, 'architecture.md');
    writeFileSync(stale, doc.replace(`${arrow}\n`, ''));
    const { status, output } = check(PAGE, stale);
    expect(output).toContain(`${PAGE}: the architecture graph matches the code`);
    expect(output).toContain(`${stale}: the architecture graph differs from the code`);
    expect(status).toBe(1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('every source file of model/, src/ and bench/ is in a layer', () => {
  const { LAYERS } = createRequire(import.meta.url)('../../.dependency-cruiser.cjs') as {
    LAYERS: { name: string; paths: string[] }[];
  };
  const files = ['model', 'src', 'bench'].flatMap((top) =>
    readdirSync(join(ROOT, top), { recursive: true, encoding: 'utf8' })
      .filter((f) => /\.[cm]?[jt]sx?$/.test(f))
      .map((f) =>
        relative(ROOT, join(ROOT, top, f))
          .split('\\')
          .join('/'),
      ),
  );
  expect(files.length).toBeGreaterThan(100);
  const outside = files.filter(
    (f) => !LAYERS.some((l) => l.paths.some((p) => new RegExp(p).test(f))),
  );
  expect(outside).toEqual([]);
});
