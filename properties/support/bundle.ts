/**
 * Bundles a TypeScript entry of this repository into ESM that Node runs as a process, for tests
 * that need the real process (exit codes, pipes) without a `npm run build` first.
 * Dependencies stay external: they come from node_modules at run time, as they do for dist/.
 *
 * Code splitting keeps the entry's dynamic imports lazy, as they are in dist/: in one file,
 * esbuild hoists the external imports of every dynamically imported module to the top, so
 * `check` would load the MCP SDKs, mcp-proxy and zod that only `conformance` needs (about four
 * times the CPU of a start from dist/, paid by every process a suite spawns).
 */
import { basename, dirname, extname } from 'node:path';
import { build } from 'esbuild';

/**
 * Writes the bundle of `entry` to `outfile`, and its chunks (`chunk-*.mjs`, the lazily loaded
 * parts) beside it: give each bundle a directory of its own.
 */
export async function bundleForNode(entry: string, outfile: string): Promise<void> {
  const ext = extname(outfile);
  await build({
    entryPoints: { [basename(outfile, ext)]: entry },
    outdir: dirname(outfile),
    outExtension: { '.js': ext || '.js' },
    splitting: true,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
  });
}
