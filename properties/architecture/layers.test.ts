/**
 * The layer rules (.dependency-cruiser.cjs) can fail: run on small trees written here, with the
 * repository's own rules file, they pass a tree that keeps the layers and fail one that imports
 * upward, closes a circle (type-only imports included; no circle is allowed, not even the
 * three the rules once named), or lets the runtime's entry reach a mutant builder. `npm test` runs the same rules on the repository
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

/** A circle the rules file once allowed by name (policies <-> task-policies), alone. */
const PAIR: Record<string, string> = {
  'model/world/policies.ts': "import { t } from './task-policies.js';\nexport const p = 1 + t;\n",
  'model/world/task-policies.ts':
    "import type { P } from './policies.js';\nexport const t = 2;\nexport type T = P;\n",
};

/**
 * One tree with every kind of break, each in files of its own (one cruise instead of one per
 * break: each costs seconds of CPU); each test below finds its own break, named by its files.
 */
const BROKEN: Record<string, string> = {
  ...CLEAN,
  ...PAIR,
  // The model imports the runtime.
  'model/up.ts': "import { r } from '../src/runtime/index.js';\nexport const up = r;\n",
  // The runtime imports a command.
  'src/runtime/guard.ts': "import { c } from '../commands/c.js';\nexport const g = c;\n",
  // A circle of which one side is a type-only import.
  'model/c1.ts': "import type { C2 } from './c2.js';\nexport const c1 = 1;\nexport type C1 = C2;\n",
  'model/c2.ts': "import { c1 } from './c1.js';\nexport const c2 = c1;\nexport type C2 = number;\n",
  // The runtime's entry reaches a mutant builder (index -> b -> mutants/m).
  'model/b.ts': "import { m } from './mutants/m.js';\nexport const b = m + 1;\n",
};

let broken: { status: number | null; output: string } | undefined;
const cruiseBroken = () => (broken ??= cruise(BROKEN));

test('a circle the rules once allowed by name fails now, alone', () => {
  const { status, output } = cruise({ ...CLEAN, ...PAIR });
  expect(output).toMatch(
    /no-circular: model\/world\/(task-)?policies\.ts → \s*model\/world\/(task-)?policies\.ts →/,
  );
  expect(status).not.toBe(0);
});

test('a broken tree fails', () => {
  expect(cruiseBroken().status).not.toBe(0);
});

test('an upward import fails: the model imports the runtime', () => {
  expect(cruiseBroken().output).toContain(
    'no-upward-from-model: model/up.ts → src/runtime/index.ts',
  );
});

test('an upward import fails: the runtime imports a command', () => {
  expect(cruiseBroken().output).toContain(
    'no-upward-from-runtime: src/runtime/guard.ts → src/commands/c.ts',
  );
});

test('a circle fails, even when one of its imports is type-only', () => {
  expect(cruiseBroken().output).toMatch(/no-circular: model\/c[12]\.ts → \s*model\/c[12]\.ts →/);
});

test("the runtime's entry may not reach a mutant builder", () => {
  expect(cruiseBroken().output).toContain('no-mutants-in-deployables: src/runtime/index.ts → ');
});
