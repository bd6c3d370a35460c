/**
 * The layer rules (.dependency-cruiser.cjs) can fail: run on small trees written here, with the
 * repository's own rules file, they pass a tree that keeps the layers and fail one that imports
 * upward, closes a circle (type-only imports included), widens a known circle, or lets the
 * runtime's entry reach a mutant builder. `npm test` runs the same rules on the repository
 * (`npm run lint:layers`, beside lint and typecheck).
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, test } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DEPCRUISE = join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');
const dirs: string[] = [];

afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A tree that keeps the layers: model below the runtime below a command. */
const CLEAN: Record<string, string> = {
  'model/a.ts': 'export const a = 1;\n',
  'model/b.ts': "import { a } from './a.js';\nexport const b = a + 1;\n",
  'model/mutants/m.ts': "import { a } from '../a.js';\nexport const m = a;\n",
  'src/runtime/index.ts': "import { b } from '../../model/b.js';\nexport const r = b;\n",
  'src/commands/c.ts': "import { r } from '../runtime/index.js';\nexport const c = r;\n",
};

/** `depcruise model src` with the repository's rules on `files`: its status and output. */
function cruise(files: Record<string, string>): { status: number | null; output: string } {
  const dir = mkdtempSync(join(tmpdir(), 'mcpr-layers-'));
  dirs.push(dir);
  copyFileSync(join(ROOT, '.dependency-cruiser.cjs'), join(dir, '.dependency-cruiser.cjs'));
  const tsconfig = {
    compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true },
    include: ['model', 'src'],
  };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  const run = spawnSync(process.execPath, [DEPCRUISE, 'model', 'src'], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

test('a tree that keeps the layers passes', () => {
  const { status, output } = cruise(CLEAN);
  expect(output).toContain('no dependency violations');
  expect(status).toBe(0);
});

test('an upward import fails: the model imports the runtime', () => {
  const { status, output } = cruise({
    ...CLEAN,
    'model/b.ts': "import { r } from '../src/runtime/index.js';\nexport const b = r;\n",
  });
  expect(output).toContain('no-upward-from-model: model/b.ts → src/runtime/index.ts');
  expect(status).not.toBe(0);
});

test('an upward import fails: the runtime imports a command', () => {
  const { status, output } = cruise({
    ...CLEAN,
    'src/runtime/guard.ts': "import { c } from '../commands/c.js';\nexport const g = c;\n",
  });
  expect(output).toContain('no-upward-from-runtime: src/runtime/guard.ts → src/commands/c.ts');
  expect(status).not.toBe(0);
});

test('a circle fails, even of type-only imports', () => {
  const { status, output } = cruise({
    ...CLEAN,
    'model/a.ts': "import type { B } from './b.js';\nexport const a = 1;\nexport type A = B;\n",
    'model/b.ts': "import { a } from './a.js';\nexport const b = a + 1;\nexport type B = number;\n",
  });
  expect(output).toContain('no-circular');
  expect(output).toContain('model/a.ts');
  expect(status).not.toBe(0);
});

test('a known circle is allowed between its two files only', () => {
  const pair = {
    'model/world/policies.ts': "import { t } from './task-policies.js';\nexport const p = 1 + t;\n",
    'model/world/task-policies.ts':
      "import type { P } from './policies.js';\nexport const t = 2;\nexport type T = P;\n",
  };
  const known = cruise({ ...CLEAN, ...pair });
  expect(known.output).toContain('no dependency violations');
  expect(known.status).toBe(0);
  const widened = cruise({
    ...CLEAN,
    ...pair,
    'model/world/policies.ts':
      "import { t } from './task-policies.js';\nimport { q } from './other.js';\nexport const p = 1 + t + q;\n",
    'model/world/other.ts':
      "import type { P } from './policies.js';\nexport const q = 3;\nexport type Q = P;\n",
  });
  expect(widened.output).toMatch(/no-circular: model\/world\/(policies|other)\.ts → /);
  expect(widened.output).toContain('model/world/other.ts');
  expect(widened.status).not.toBe(0);
});

test("the runtime's entry may not reach a mutant builder", () => {
  const { status, output } = cruise({
    ...CLEAN,
    'model/b.ts': "import { m } from './mutants/m.js';\nexport const b = m + 1;\n",
  });
  expect(output).toContain('no-mutants-in-deployables: src/runtime/index.ts → ');
  expect(status).not.toBe(0);
});
