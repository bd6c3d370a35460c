/**
 * `mcp-resumption mutants`: computes the kill table of the mutant zoo from a real run and
 * prints it, or writes it into the marked block of a Markdown file (docs/world.md; the
 * renderers are the docs generator's, src/docs-gen/world-page.ts).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { killTable, mutantEntries } from '../../model/mutants/kill-table.js';
import { MACHINE_MUTANTS } from '../../model/mutants/machine-mutants.js';
import {
  EXAMPLE_MUTANT,
  MissingBlockError,
  renderKillCounterexamples,
  renderKillReport,
  worldPageText,
} from '../docs-gen/world-page.js';
import { intOption, parseCommandArgs, UsageError, type Command } from './cli-kit.js';

export {
  EXAMPLE_MUTANT,
  renderKillCounterexamples,
  renderKillExample,
  renderKillReport,
  replaceKillExampleBlock,
  replaceKillTableBlock,
} from '../docs-gen/world-page.js';

/**
 * Every name of `--only` must be a mutant of the kill table: an unknown one was silently
 * skipped (a run of the others, exit 0). A machine mutant that no claim of the world can see
 * (`keepalive-is-proof`) is named as such, with where it is killed.
 */
function checkOnly(only: readonly string[]): void {
  const known = mutantEntries().map((e) => e.name);
  const machine = new Set(MACHINE_MUTANTS.map((m) => m.name));
  const unknown = only.filter((n) => !known.includes(n));
  if (unknown.length === 0) return;
  const why = unknown.map((n) =>
    machine.has(n)
      ? `${n} is not in the kill table (a machine mutant: the tests listed in docs/spec-tests.md kill it)`
      : `${n} is not in the kill table`,
  );
  throw new UsageError(`--only: ${why.join('; ')}; the kill table's mutants: ${known.join(', ')}`);
}

/** The `mutants` subcommand. */
export const mutantsCommand: Command = {
  name: 'mutants',
  summary: 'search the mutant zoo and print the kill table (or --write it into a file)',
  help: `Usage: mcp-resumption mutants [--seed N] [--runs N] [--only a,b] [--brief | --mermaid]
                             [--write FILE]

Searches every client and server mutant with fast-check and prints the kill table: mutant,
the claim that killed it, runs to kill, and the length of the shrunk counterexample, then each
kill's reason and replay command. Exit status 1 if a mutant survives.

  --seed N      fast-check seed (default 1, so the table is reproducible)
  --runs N      runs per probe a kill must happen within (default 3000)
  --only LIST   only these mutants (comma-separated)
  --brief       after the table, every kill's counterexample with a brief timeline (runs of
                routine lines folded, with a legend)
  --mermaid     after the table, every kill's counterexample as a Mermaid sequence diagram
  --write FILE  replace the kill-table block (between the kill-table markers) in FILE, and
                the kill-example block (the ${EXAMPLE_MUTANT} counterexample), if FILE has one`,
  async run(argv, io) {
    const { values } = parseCommandArgs('mutants', argv, {
      seed: { type: 'string' },
      runs: { type: 'string' },
      only: { type: 'string' },
      write: { type: 'string' },
      brief: { type: 'boolean' },
      mermaid: { type: 'boolean' },
    });
    if (values.brief === true && values.mermaid === true)
      throw new UsageError('--brief and --mermaid exclude each other');
    const shown = { brief: values.brief === true, mermaid: values.mermaid === true };
    const seed = intOption('seed', values.seed as string | undefined, 1);
    const runs = intOption('runs', values.runs as string | undefined, 3_000);
    if (runs === 0) throw new UsageError('--runs must be at least 1');
    const only = (values.only as string | undefined)?.split(',').map((s) => s.trim());
    if (only) checkOnly(only);
    const rows = killTable({
      runsPerProbe: runs,
      seed,
      ...(only ? { only } : {}),
      onRow: (r) => io.err(`mutants: ${r.mutant}: ${r.claim ?? 'survived'}\n`),
    });
    if (only && rows.length === 0) throw new UsageError('--only matched no mutant');
    const body = renderKillReport(rows, seed, runs);
    const file = values.write as string | undefined;
    const timelines = shown.brief || shown.mermaid ? renderKillCounterexamples(rows, shown) : '';
    if (file === undefined) io.out(body + timelines + '\n');
    else {
      let doc: string;
      try {
        doc = await readFile(file, 'utf8');
      } catch {
        throw new UsageError(`mutants: cannot read ${file}`);
      }
      let out: string;
      try {
        out = worldPageText(doc, rows, { seed, runs }, file);
      } catch (e) {
        if (e instanceof MissingBlockError) throw new UsageError(e.message);
        throw e;
      }
      await writeFile(file, out);
      io.out(`kill table written to ${file}\n`);
    }
    return rows.every((r) => r.claim !== null) ? 0 : 1;
  },
};
