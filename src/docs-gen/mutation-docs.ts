/**
 * `npm run mutation:docs`: the mutation scores of `npm run mutation` (Stryker's JSON reports) as
 * a Markdown table, and every surviving mutant with
 * the reason it is equivalent, written between the markers of docs/mutation.md. The reasons are a
 * person's, kept in docs/mutation-equivalents.json: a survivor without one fails the command, so
 * the page never calls a mutant equivalent that nobody looked at.
 *
 * Stryker is run per file or per group of files (a run over everything takes hours on two cores),
 * and each run keeps its own report under reports/mutation/runs/ (stryker.config.mjs names it after
 * the files it mutated). The table merges every report there: for each file, the newest report
 * that mutated it. A report whose copy of a file differs from the file on disk is marked in the
 * table ("changed since the run"), so the page never passes an older version's score off as the
 * code's; `--strict` refuses such a report instead.
 *
 * Usage: node dist/src/docs-gen/main.js mutation [--report FILE ...] [--reasons FILE] [--write FILE]
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { alignedTable } from '../../model/markdown.js';

/** One mutant of Stryker's JSON report (the fields read here). */
interface Mutant {
  mutatorName: string;
  replacement?: string;
  status: string;
  location: { start: { line: number; column: number }; end: { line: number; column: number } };
}

/** The JSON report: mutants per file. */
interface Report {
  files: Record<string, { source: string; mutants: Mutant[] }>;
}

/** Marker lines around the generated block in docs/mutation.md. */
export const MUTATION_BEGIN = '<!-- mutation:begin -->';
/** See {@link MUTATION_BEGIN}. */
export const MUTATION_END = '<!-- mutation:end -->';

const DETECTED = new Set(['Killed', 'Timeout']);
const UNDETECTED = new Set(['Survived', 'NoCoverage']);

/** The source a mutant replaced, on one line. */
function original(source: string, m: Mutant): string {
  const lines = source.split('\n');
  const { start, end } = m.location;
  const text =
    start.line === end.line
      ? (lines[start.line - 1] ?? '').slice(start.column - 1, end.column - 1)
      : [
          (lines[start.line - 1] ?? '').slice(start.column - 1),
          ...lines.slice(start.line, end.line - 1),
          (lines[end.line - 1] ?? '').slice(0, end.column - 1),
        ].join(' ');
  return text.replace(/\s+/g, ' ').trim();
}

/** The key a reason is filed under: file, mutator, original and replacement (no line numbers). */
export function reasonKey(file: string, m: Mutant, source: string): string {
  return `${file} | ${m.mutatorName} | ${original(source, m)} => ${(m.replacement ?? '').replace(/\s+/g, ' ').trim()}`;
}

const clip = (s: string, n = 70) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** The generated block: the score table, then each survivor with its reason. */
export function mutationBlock(
  report: Report,
  reasons: Record<string, string>,
  stale: ReadonlySet<string> = new Set(),
  notRun: readonly string[] = [],
): { text: string; missing: string[] } {
  const rows: string[][] = [];
  const survivors: string[] = [];
  const missing: string[] = [];
  for (const [file, { source, mutants }] of Object.entries(report.files).sort()) {
    const count = (s: string) => mutants.filter((m) => m.status === s).length;
    const detected = mutants.filter((m) => DETECTED.has(m.status)).length;
    const undetected = mutants.filter((m) => UNDETECTED.has(m.status)).length;
    const score = detected + undetected === 0 ? 100 : (100 * detected) / (detected + undetected);
    rows.push([
      `\`${file}\``,
      `${score.toFixed(2)}%`,
      String(count('Killed')),
      String(count('Timeout')),
      String(count('Survived')),
      String(count('NoCoverage')),
      stale.has(file) ? 'changed since the run' : 'as run',
    ]);
    for (const m of mutants.filter((x) => UNDETECTED.has(x.status))) {
      const key = reasonKey(file, m, source);
      const reason = reasons[key];
      if (reason === undefined) missing.push(key);
      const where = `${file}:${m.location.start.line}:${m.location.start.column}`;
      survivors.push(
        `- \`${where}\` ${m.mutatorName} (${m.status}): \`${clip(original(source, m))}\` → \`${clip(m.replacement ?? '')}\`. ${reason ?? '**Not examined yet**: a missing test or an equivalence nobody has argued.'}`,
      );
    }
  }
  for (const file of notRun.filter((f) => !(f in report.files)).sort())
    rows.push([`\`${file}\``, '-', '-', '-', '-', '-', 'no run of this code yet']);
  const table = alignedTable(
    ['file', 'score', 'killed', 'timeout', 'survived', 'no coverage', 'code'],
    rows,
    [false, true, true, true, true, true, false],
  );
  const text = [
    MUTATION_BEGIN,
    '',
    table,
    '',
    survivors.length === 0
      ? 'No mutant survived.'
      : missing.length === 0
        ? 'Surviving mutants, each equivalent:'
        : `Surviving mutants: each with the reason it is equivalent, or marked as not examined yet (${missing.length}).`,
    '',
    ...survivors,
    ...(survivors.length ? [''] : []),
    MUTATION_END,
  ].join('\n');
  return { text, missing };
}

/** Where the per-run reports are kept (see stryker.config.mjs). */
export const RUNS_DIR = 'reports/mutation/runs';

/**
 * One report from several: for each file, the entry of the last report (in the order given) that
 * mutated it. With `checkSources`, a file whose current text differs from the report's copy is an
 * error: its score belongs to another version of the code.
 */
export function mergeReports(
  reports: { name: string; report: Report }[],
  currentSource?: (file: string) => string | undefined,
): { report: Report; stale: Map<string, string> } {
  const files: Report['files'] = {};
  const from: Record<string, string> = {};
  for (const { name, report } of reports) {
    for (const [file, entry] of Object.entries(report.files)) {
      files[file] = entry;
      from[file] = name;
    }
  }
  const stale = new Map<string, string>();
  if (currentSource) {
    for (const [file, entry] of Object.entries(files)) {
      const now = currentSource(file);
      if (now !== entry.source)
        stale.set(
          file,
          now === undefined
            ? `${file}: no such file (report ${from[file]})`
            : `${file}: changed since the run in ${from[file]}; run Stryker on it again`,
        );
    }
  }
  return { report: { files }, stale };
}

/** The reports under {@link RUNS_DIR}, oldest first (so that the newest wins in a merge). */
function runReports(): string[] {
  let names: string[];
  try {
    names = readdirSync(RUNS_DIR).filter((n) => n.endsWith('.json'));
  } catch {
    return [];
  }
  return names
    .map((n) => {
      const path = join(RUNS_DIR, n);
      return { path, mtime: statSync(path).mtimeMs };
    })
    .sort((a, b) => a.mtime - b.mtime || a.path.localeCompare(b.path))
    .map((r) => r.path);
}

/**
 * `node dist/src/docs-gen/main.js mutation ARGS` (./main.ts): merges the reports, prints the
 * block or writes it into `--write FILE`; the exit status (0, 1 for a survivor without a reason,
 * 2 for bad input).
 */
export async function mutationDocsMain(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      report: { type: 'string', multiple: true },
      reasons: { type: 'string', default: 'docs/mutation-equivalents.json' },
      write: { type: 'string' },
      strict: { type: 'boolean' },
      draft: { type: 'boolean' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    process.stdout.write(
      'Usage: node dist/src/docs-gen/main.js mutation [--report FILE ...] [--reasons FILE] [--write FILE]\n' +
        `  --report FILE  a Stryker JSON report; repeat it to merge several (later ones win per file).\n` +
        `                 Default: every report in ${RUNS_DIR}/, newest winning per file.\n` +
        '  --reasons FILE the equivalence reasons (default docs/mutation-equivalents.json)\n' +
        '  --write FILE   replace the block between the mutation markers of FILE (default: print it)\n' +
        '  --strict       refuse a report whose copy of a file differs from the file (default: mark it)\n' +
        '  --draft        write the page even when survivors have no reason (marked "not examined yet")\n',
    );
    return 0;
  }
  const paths = values.report ?? runReports();
  if (paths.length === 0) {
    process.stderr.write(
      `mutation-docs: no report: run \`npm run mutation\` first (reports go to ${RUNS_DIR}/), or name one with --report\n`,
    );
    return 2;
  }
  let reports: { name: string; report: Report }[];
  let reasons: Record<string, string>;
  try {
    reports = paths.map((name) => ({
      name,
      report: JSON.parse(readFileSync(name, 'utf8')) as Report,
    }));
    reasons = JSON.parse(readFileSync(values.reasons!, 'utf8')) as Record<string, string>;
  } catch (e) {
    process.stderr.write(`mutation-docs: ${(e as Error).message.split('\n')[0]}\n`);
    return 2;
  }
  const { report, stale } = mergeReports(reports, (file) => {
    try {
      return readFileSync(file, 'utf8');
    } catch {
      return undefined;
    }
  });
  if (stale.size > 0) {
    process.stderr.write(
      `mutation-docs: ${stale.size} file(s) changed since their run${values.strict ? '' : ' (marked in the table)'}:\n${[...stale.values()].map((s) => `  ${s}`).join('\n')}\n`,
    );
    if (values.strict) return 2;
  }
  // The files Stryker is set to mutate (stryker.config.mjs) that no report covers are listed too,
  // so that a file missing from the table reads as "not measured", not as "not mutation-tested".
  let mutate: string[] = [];
  try {
    const config = (await import(pathToFileURL(resolve('stryker.config.mjs')).href)) as {
      default?: { mutate?: string[] };
    };
    mutate = config.default?.mutate ?? [];
  } catch {
    mutate = [];
  }
  const { text, missing } = mutationBlock(report, reasons, new Set(stale.keys()), mutate);
  if (missing.length > 0 && !values.draft) {
    process.stderr.write(
      `mutation-docs: ${missing.length} surviving mutant(s) without a reason in ${values.reasons}:\n${missing.map((k) => `  ${JSON.stringify(k)}`).join('\n')}\n`,
    );
    return 1;
  }
  if (missing.length > 0) {
    process.stderr.write(
      `mutation-docs: ${missing.length} surviving mutant(s) not examined yet (--draft: written as such)\n`,
    );
  }
  if (!values.write) {
    process.stdout.write(text + '\n');
    return 0;
  }
  const doc = readFileSync(values.write, 'utf8');
  const a = doc.indexOf(MUTATION_BEGIN);
  const b = doc.indexOf(MUTATION_END);
  if (a < 0 || b < a) {
    process.stderr.write(`mutation-docs: no mutation markers in ${values.write}\n`);
    return 2;
  }
  writeFileSync(values.write, doc.slice(0, a) + text + doc.slice(b + MUTATION_END.length));
  process.stdout.write(`mutation scores written to ${values.write}\n`);
  return 0;
}
