/**
 * Builds the playground page with esbuild: src/playground/page/main.ts and everything it
 * imports (the model, the world, the claims, the mutants: the same code the CLI runs, not a
 * copy) bundled into one script for the browser, next to the page, its style sheet and
 * Mermaid's browser build from node_modules. Needs a clone with its devDependencies.
 */
import { copyFile, mkdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the page's sources are, relative to the repository root. */
export const PAGE_DIR = join('src', 'playground', 'page');

/** The repository root above this file (from src/ or from dist/src/), or `null`. */
export function repoRoot(from: string = dirname(fileURLToPath(import.meta.url))): string | null {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, PAGE_DIR, 'main.ts'))) return dir;
    if (dirname(dir) === dir) return null;
  }
}

/** Builds the page into `outDir` (index.html, app.js, style.css, mermaid.min.js). */
export async function buildPlayground(outDir: string): Promise<void> {
  const root = repoRoot();
  if (root === null)
    throw new Error(`the playground is built from a clone: ${PAGE_DIR}/main.ts not found`);
  // esbuild is a devDependency: loaded here, so that the rest of the CLI never needs it.
  const { build } = await import('esbuild');
  const page = join(root, PAGE_DIR);
  await mkdir(outDir, { recursive: true });
  await build({
    entryPoints: [join(page, 'main.ts')],
    outfile: join(outDir, 'app.js'),
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    sourcemap: true,
    logLevel: 'warning',
  });
  await copyFile(join(page, 'index.html'), join(outDir, 'index.html'));
  await copyFile(join(page, 'style.css'), join(outDir, 'style.css'));
  const mermaid = createRequire(join(root, 'package.json')).resolve('mermaid/dist/mermaid.min.js');
  await copyFile(mermaid, join(outDir, 'mermaid.min.js'));
}
