/**
 * The docs generators' one entry (src/docs-gen/main.ts, called by `npm run docs:diagram`,
 * `docs:incident`, `docs:primer` and `mutation:docs`), run as a process: `blocks FILE` rewrites
 * a stale page into the committed one (so a generator that wrote nothing, or the wrong block,
 * fails here), and bad input is one line on stderr with exit status 2.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { bundleForNode } from '../support/bundle.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
// Two folders below the root, as src/docs-gen/ is: the corpus is found from the same place.
const DIR = join(ROOT, 'reports/docs-gen/');
const MAIN = join(DIR, 'main.mjs');
const tmp = mkdtempSync(join(tmpdir(), 'mcpr-docs-gen-'));

beforeAll(async () => {
  mkdirSync(DIR, { recursive: true });
  await bundleForNode(join(ROOT, 'src/docs-gen/main.ts'), MAIN);
}, 120_000);

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function run(...args: string[]): { status: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [MAIN, ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { status: r.status, out: r.stdout, err: r.stderr };
}

test('blocks FILE rewrites every stale generated block of a page into what the code draws', () => {
  for (const page of ['docs/model.md', 'docs/incident.md', 'docs/primer.md']) {
    const committed = readFileSync(join(ROOT, page), 'utf8');
    // The first Mermaid body of every generated block is emptied (hand-drawn ones are kept).
    const stale = committed.replace(
      /(:begin [^\n]*-->\n[\s\S]*?```mermaid\n)[\s\S]*?```/g,
      '$1```',
    );
    expect(stale).not.toBe(committed);
    const file = join(tmp, page.replace('docs/', ''));
    writeFileSync(file, stale);
    const r = run('blocks', file);
    expect(r.err).toBe('');
    expect(r.status).toBe(0);
    expect(r.out).toMatch(/^\d diagram block\(s\) written to /);
    expect(readFileSync(file, 'utf8')).toBe(committed);
  }
});

test('bad input is one line and exit status 2', () => {
  const plain = join(tmp, 'plain.md');
  writeFileSync(plain, '# no markers here\n');
  const cases: [string[], RegExp][] = [
    [['blocks', plain], /has no generated diagram markers/],
    [['blocks'], /needs at least one FILE/],
    [['blocks', join(tmp, 'missing.md')], /cannot read/],
    [['tables'], /unknown generator "tables"/],
  ];
  for (const [args, message] of cases) {
    const r = run(...args);
    expect(r.status, args.join(' ')).toBe(2);
    expect(r.err.trim().split('\n'), args.join(' ')).toHaveLength(1);
    expect(r.err).toMatch(message);
  }
});

test('mutation is reached through the same entry', () => {
  const r = run('mutation', '--help');
  expect(r.status).toBe(0);
  expect(r.out).toContain('Usage: node dist/src/docs-gen/main.js mutation');
});
