/**
 * The docs generators' one entry, which the `npm run docs:*` scripts call (after `npm run
 * build`):
 *
 *     node dist/src/docs-gen/main.js blocks FILE...     the diagram blocks of docs/model.md,
 *                                                       docs/incident.md and docs/primer.md
 *                                                       (./blocks.ts)
 *     node dist/src/docs-gen/main.js mutation [ARGS]    the mutation table of docs/mutation.md
 *                                                       (./mutation-docs.ts; `mutation --help`)
 *
 * `blocks` replaces every generated block a file has (between its markers) with what the code
 * generates now; `mcp-resumption diagram --write FILE` does the same through the CLI. Bad input
 * is one line on stderr and exit status 2. Only run, never imported.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { replaceGeneratedBlocks } from './blocks.js';
import { mutationDocsMain } from './mutation-docs.js';

const USAGE = `Usage: node dist/src/docs-gen/main.js blocks FILE...
       node dist/src/docs-gen/main.js mutation [--report FILE ...] [--reasons FILE] [--write FILE] [--strict] [--draft]
`;

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
  if (what === '--help' || what === undefined) {
    (what === undefined ? process.stderr : process.stdout).write(USAGE);
    return what === undefined ? 2 : 0;
  }
  process.stderr.write(
    `docs-gen: unknown generator ${JSON.stringify(what)} (blocks or mutation)\n`,
  );
  return 2;
}

process.exitCode = await docsGenMain(process.argv.slice(2));
