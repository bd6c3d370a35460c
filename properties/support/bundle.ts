/**
 * Bundles a TypeScript entry of this repository into one ESM file that Node runs as a process,
 * for tests that need the real process (exit codes, pipes) without a `npm run build` first.
 * Dependencies stay external: they come from node_modules at run time, as they do for dist/.
 */
import { build } from 'esbuild';

export async function bundleForNode(entry: string, outfile: string): Promise<void> {
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
  });
}
