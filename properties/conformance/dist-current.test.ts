/**
 * `distIsCurrent` (properties/support/dist-current.ts), which lets packed-install pack without a
 * second build: it must say "stale" for every change a build would see (an edited, added or
 * deleted source, an edited tsconfig, no build at all), or the packed test would install an
 * old dist/.
 */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { distIsCurrent } from '../support/dist-current.js';

const roots: string[] = [];
afterAll(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

/** Sets the time of `paths` to `seconds` after the epoch. */
function at(seconds: number, ...paths: string[]): void {
  for (const p of paths) utimesSync(p, seconds, seconds);
}

/** A project with its inputs at time 100 and a build at 200. */
function project(): { root: string; source: string; inputs: string[]; outputs: string[] } {
  const root = mkdtempSync(join(tmpdir(), 'mcpr-dist-'));
  roots.push(root);
  for (const d of ['model', 'src/runtime', 'bench', 'dist/src/runtime']) {
    mkdirSync(join(root, d), { recursive: true });
  }
  const files = {
    source: 'src/runtime/guard.ts',
    inputs: ['model/m.ts', 'bench/b.ts', 'package.json', 'tsconfig.json', 'tsconfig.build.json'],
    outputs: ['dist/src/cli.js', 'dist/src/runtime/guard.js'],
  };
  for (const f of [files.source, ...files.inputs, ...files.outputs]) {
    writeFileSync(join(root, f), '');
  }
  const abs = (fs: string[]) => fs.map((f) => join(root, f));
  const dirs = ['model', 'src', 'src/runtime', 'bench'];
  at(100, ...abs([files.source, ...files.inputs, ...dirs]));
  at(200, ...abs(files.outputs));
  return {
    root,
    source: join(root, files.source),
    inputs: abs(files.inputs),
    outputs: abs(files.outputs),
  };
}

test('a build newer than every input is current', () => {
  expect(distIsCurrent(project().root)).toBe(true);
});

test('an edited source, an edited config or an edited package.json makes it stale', () => {
  const p = project();
  at(300, p.source);
  expect(distIsCurrent(p.root)).toBe(false);
  for (const input of p.inputs) {
    const q = project();
    at(300, q.inputs[p.inputs.indexOf(input)]!);
    expect(distIsCurrent(q.root), input).toBe(false);
  }
});

test('a source added or deleted after the build makes it stale', () => {
  const added = project();
  writeFileSync(join(added.root, 'src/runtime/new.ts'), '');
  expect(distIsCurrent(added.root)).toBe(false);
  const deleted = project();
  rmSync(deleted.source);
  expect(distIsCurrent(deleted.root)).toBe(false);
});

test('one output older than an input (a build cut short, or partly redone) makes it stale', () => {
  const p = project();
  at(50, p.outputs[1]!);
  expect(distIsCurrent(p.root)).toBe(false);
});

test('no build at all is stale', () => {
  const p = project();
  rmSync(join(p.root, 'dist'), { recursive: true });
  expect(distIsCurrent(p.root)).toBe(false);
});
