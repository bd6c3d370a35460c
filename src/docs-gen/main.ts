/**
 * The docs generators' one entry, which the `npm run docs:*` scripts call (after `npm run
 * build`):
 *
 *     node dist/src/docs-gen/main.js blocks FILE...     the diagram blocks of docs/model.md,
 *                                                       docs/incident.md and docs/primer.md
 *                                                       (./blocks.ts)
 *     node dist/src/docs-gen/main.js mutation [ARGS]    the mutation table of docs/mutation.md
 *                                                       (./mutation-docs.ts; `mutation --help`)
 *     node dist/src/docs-gen/main.js world FILE [--seed N] [--runs N]
 *                                                       the kill table and example kill of
 *                                                       docs/world.md (./world-page.ts)
 *
 * `blocks` replaces every generated block a file has (between its markers) with what the code
 * generates now; `mcp-resumption diagram --write FILE` does the same through the CLI. Bad input
 * is one line on stderr and exit status 2. Only run, never imported.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { replaceGeneratedBlocks } from './blocks.js';
import { parseArgs } from 'node:util';
import { mutationDocsMain } from './mutation-docs.js';
import { MissingBlockError, writeWorldPage } from './world-page.js';

const USAGE = `Usage: node dist/src/docs-gen/main.js blocks FILE...
       node dist/src/docs-gen/main.js mutation [--report FILE ...] [--reasons FILE] [--write FILE] [--strict] [--draft]
       node dist/src/docs-gen/main.js world FILE [--seed N] [--runs N]   (defaults: seed 1, 3000 runs)
`;

/** A whole number option (>= `min`), or `null` after writing its one-line error. */
function wholeOption(name: string, raw: string | undefined, fallback: number, min: number) {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (/^\d+$/.test(raw) && Number.isSafeInteger(n) && n >= min) return n;
  process.stderr.write(
    `docs-gen: --${name} must be a whole number >= ${min}, got ${JSON.stringify(raw)}\n`,
  );
  return null;
}

/** `world FILE [--seed N] [--runs N]`: docs/world.md's kill table from a real run. */
async function writeWorld(argv: readonly string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: { seed: { type: 'string' }, runs: { type: 'string' } },
    });
  } catch (e) {
    process.stderr.write(`docs-gen: world: ${(e as Error).message}\n`);
    return 2;
  }
  const [file, ...extra] = parsed.positionals;
  if (file === undefined || extra.length > 0) {
    process.stderr.write('docs-gen: world needs exactly one FILE\n');
    return 2;
  }
  const seed = wholeOption('seed', parsed.values.seed, 1, 0);
  const runs = wholeOption('runs', parsed.values.runs, 3_000, 1);
  if (seed === null || runs === null) return 2;
  try {
    const rows = await writeWorldPage(file, {
      seed,
      runs,
      onRow: (r) =>
        process.stderr.write(`docs-gen: world: ${r.mutant}: ${r.claim ?? 'survived'}\n`),
    });
    process.stdout.write(`kill table (${rows.length} mutants) written to ${file}\n`);
    return rows.every((r) => r.claim !== null) ? 0 : 1;
  } catch (e) {
    if (!(e instanceof MissingBlockError)) throw e;
    process.stderr.write(`docs-gen: world: ${e.message}\n`);
    return 2;
  }
}

/** `blocks FILE...`: each file's generated blocks rewritten in place; the exit status. */
async function writeBlocks(files: readonly string[]): Promise<number> {
  if (files.length === 0) {
    process.stderr.write('docs-gen: blocks needs at least one FILE\n');
    return 2;
  }
  for (const file of files) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch {
      process.stderr.write(`docs-gen: cannot read ${file}\n`);
      return 2;
    }
    const { doc, written } = await replaceGeneratedBlocks(text);
    if (written === 0) {
      process.stderr.write(`docs-gen: ${file} has no generated diagram markers\n`);
      return 2;
    }
    await writeFile(file, doc);
    process.stdout.write(`${written} diagram block(s) written to ${file}\n`);
  }
  return 0;
}

/** The entry: dispatches to a generator; the exit status. */
async function docsGenMain(argv: readonly string[]): Promise<number> {
  const [what, ...rest] = argv;
  if (what === 'blocks') return writeBlocks(rest);
  if (what === 'mutation') return mutationDocsMain(rest);
  if (what === 'world') return writeWorld(rest);
  if (what === '--help' || what === undefined) {
    (what === undefined ? process.stderr : process.stdout).write(USAGE);
    return what === undefined ? 2 : 0;
  }
  process.stderr.write(
    `docs-gen: unknown generator ${JSON.stringify(what)} (blocks, mutation or world)\n`,
  );
  return 2;
}

process.exitCode = await docsGenMain(process.argv.slice(2));
