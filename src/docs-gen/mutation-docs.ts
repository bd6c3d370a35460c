/**
 * `npm run mutation:docs`: the mutation scores of `npm run mutation` (Stryker's JSON reports) as
 * a Markdown table, and every surviving mutant with
 * the reason it is equivalent, written between the markers of docs/mutation.md. The reasons are a
 * person's, kept in docs/mutation-equivalents.json: a survivor without one fails the command, so
 * the page never calls a mutant equivalent that nobody looked at.
 *
 * Stryker is run per file or per group of files (a run over everything takes hours on two cores),
 * and each run keeps its own report under reports/mutation/runs/ (stryker.config.mjs names it after
 * the files it mutated). Those reports are not in git, so what the page shows is also kept, per
 * file, in the tracked summary docs/mutation-runs.json ({@link MutationRuns}): the SHA-256 of the
 * code that was mutated, when, by which command, the counts by status and each survivor. The
 * table merges the summary with every report on disk: for each file, the newest run (a report on
 * disk wins over the summary's entry unless that entry is newer), and the summary is written back
 * with the page, so a clone without reports regenerates the same page. A file whose code differs
 * from the mutated code (its hash) is marked in the table ("changed since the run"), so the page
 * never passes an older version's score off as the code's; `--strict` refuses such a row instead.
 *
 * Usage: node dist/src/docs-gen/main.js mutation [--report FILE ...] [--reasons FILE] [--runs FILE] [--write FILE]
 */
import { createHash } from 'node:crypto';
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

/** The JSON report: mutants per file, and the run's options. */
interface Report {
  files: Record<string, { source: string; mutants: Mutant[] }>;
  config?: {
    command_comment?: unknown;
    mutate?: unknown;
    concurrency?: unknown;
    timeoutMS?: unknown;
  };
}

/** A mutant no test detected, as kept in the summary: enough to file and show its reason. */
export interface KeptSurvivor {
  /** `line:column` of the mutated code, in the version that was mutated. */
  at: string;
  status: 'Survived' | 'NoCoverage';
  mutator: string;
  /** The code the mutant replaced, on one line. */
  original: string;
  /** What Stryker put in its place, on one line. */
  replacement: string;
}

/** One file's latest run, as kept in docs/mutation-runs.json. */
export interface FileRun {
  /** SHA-256 (hex) of the file's text as it was mutated. */
  sha256: string;
  /** When the run was made (an ISO date, or date and time). */
  date: string;
  /** The command that made it (as it was typed, environment included). */
  command: string;
  counts: { Killed: number; Timeout: number; Survived: number; NoCoverage: number };
  survivors: KeptSurvivor[];
}

/** The tracked summary of the runs: per file, its latest run. */
export interface MutationRuns {
  files: Record<string, FileRun>;
}

/** Marker lines around the generated block in docs/mutation.md. */
export const MUTATION_BEGIN = '<!-- mutation:begin -->';
/** See {@link MUTATION_BEGIN}. */
export const MUTATION_END = '<!-- mutation:end -->';
/** Marker lines around the task streams' block (the files of stryker.config.mjs `taskFiles`). */
export const TASKS_BEGIN = '<!-- mutation:tasks:begin -->';
/** See {@link TASKS_BEGIN}. */
export const TASKS_END = '<!-- mutation:tasks:end -->';

const UNDETECTED = new Set(['Survived', 'NoCoverage']);

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

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
  return oneLine(text);
}

/** The key a reason is filed under: file, mutator, original and replacement (no line numbers). */
export function survivorKey(file: string, s: KeptSurvivor): string {
  return `${file} | ${s.mutator} | ${s.original} => ${s.replacement}`;
}

/** SHA-256 (hex) of a file's text. */
export const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** A report's entry for one file, as the summary keeps it. */
export function fileRun(
  entry: { source: string; mutants: Mutant[] },
  date: string,
  command: string,
): FileRun {
  const count = (s: string) => entry.mutants.filter((m) => m.status === s).length;
  return {
    sha256: sha256(entry.source),
    date,
    command,
    counts: {
      Killed: count('Killed'),
      Timeout: count('Timeout'),
      Survived: count('Survived'),
      NoCoverage: count('NoCoverage'),
    },
    survivors: entry.mutants
      .filter((m) => UNDETECTED.has(m.status))
      .map((m) => ({
        at: `${m.location.start.line}:${m.location.start.column}`,
        status: m.status as KeptSurvivor['status'],
        mutator: m.mutatorName,
        original: original(entry.source, m),
        replacement: oneLine(m.replacement ?? ''),
      })),
  };
}

/** A report read from disk, with when and how it was made. */
export interface DatedReport {
  name: string;
  report: Report;
  date: string;
  command: string;
}

/**
 * The summary with the reports merged in: for each file, the report's run unless the summary
 * holds a newer one (by date); reports later in the list win over earlier ones. A file that only
 * the summary has keeps its entry: a clone without reports loses no row.
 */
export function mergeRuns(kept: MutationRuns, reports: readonly DatedReport[]): MutationRuns {
  const files: Record<string, FileRun> = { ...kept.files };
  for (const { report, date, command } of reports) {
    for (const [file, entry] of Object.entries(report.files)) {
      const old = files[file];
      if (old !== undefined && old !== kept.files[file]) {
        files[file] = fileRun(entry, date, command); // a later report of the list
      } else if (old === undefined || !(Date.parse(old.date) > Date.parse(date))) {
        files[file] = fileRun(entry, date, command);
      }
    }
  }
  return {
    files: Object.fromEntries(Object.entries(files).sort(([a], [b]) => a.localeCompare(b))),
  };
}

/** How a row's code compares with the code that was mutated. */
export type CodeState = 'as run' | 'changed since the run';

/**
 * Per file of the summary, `as run` when the file on disk hashes to the mutated code, else
 * `changed since the run` (a file that is gone too).
 */
export function codeStates(
  runs: MutationRuns,
  currentSource: (file: string) => string | undefined,
): Map<string, CodeState> {
  const states = new Map<string, CodeState>();
  for (const [file, run] of Object.entries(runs.files)) {
    const now = currentSource(file);
    states.set(
      file,
      now !== undefined && sha256(now) === run.sha256 ? 'as run' : 'changed since the run',
    );
  }
  return states;
}

const clip = (s: string, n = 70) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/**
 * A generated block: the score table of the files `runs` holds (and a row for each file of
 * `notRun` it does not), then each survivor with its reason.
 */
export function mutationBlock(
  runs: MutationRuns,
  reasons: Record<string, string>,
  states: ReadonlyMap<string, CodeState> = new Map(),
  notRun: readonly string[] = [],
  markers: readonly [string, string] = [MUTATION_BEGIN, MUTATION_END],
): { text: string; missing: string[] } {
  const rows: string[][] = [];
  const survivors: string[] = [];
  const missing: string[] = [];
  for (const [file, run] of Object.entries(runs.files).sort(([a], [b]) => a.localeCompare(b))) {
    const { Killed, Timeout, Survived, NoCoverage } = run.counts;
    const detected = Killed + Timeout;
    const undetected = Survived + NoCoverage;
    const score = detected + undetected === 0 ? 100 : (100 * detected) / (detected + undetected);
    rows.push([
      `\`${file}\``,
      `${score.toFixed(2)}%`,
      String(Killed),
      String(Timeout),
      String(Survived),
      String(NoCoverage),
      states.get(file) ?? 'as run',
    ]);
    for (const s of run.survivors) {
      const key = survivorKey(file, s);
      const reason = reasons[key];
      if (reason === undefined) missing.push(key);
      survivors.push(
        `- \`${file}:${s.at}\` ${s.mutator} (${s.status}): \`${clip(s.original)}\` → \`${clip(s.replacement)}\`. ${reason ?? '**Not examined yet**: a missing test or an equivalence nobody has argued.'}`,
      );
    }
  }
  for (const file of notRun.filter((f) => !(f in runs.files)).sort())
    rows.push([`\`${file}\``, '-', '-', '-', '-', '-', 'no run of this code yet']);
  const table = alignedTable(
    ['file', 'score', 'killed', 'timeout', 'survived', 'no coverage', 'code'],
    rows,
    [false, true, true, true, true, true, false],
  );
  const text = [
    markers[0],
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
    markers[1],
  ].join('\n');
  return { text, missing };
}

/** The summary, written so that each survivor is one line (a diff shows a run's changes). */
export function runsJson(runs: MutationRuns): string {
  const files = Object.entries(runs.files).map(([file, r]) => {
    const head = JSON.stringify({
      sha256: r.sha256,
      date: r.date,
      command: r.command,
      counts: r.counts,
    }).slice(1, -1);
    const survivors = r.survivors.map((s) => `        ${JSON.stringify(s)}`).join(',\n');
    return `    ${JSON.stringify(file)}: {${head}, "survivors": [${survivors ? `\n${survivors}\n      ` : ''}]}`;
  });
  return `{\n  "files": {\n${files.join(',\n')}\n  }\n}\n`;
}

/** Where the per-run reports are kept (see stryker.config.mjs). */
export const RUNS_DIR = 'reports/mutation/runs';
/** The tracked summary of the runs. */
export const RUNS_FILE = 'docs/mutation-runs.json';

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
 * The command a report was made by: the `command_comment` stryker.config.mjs puts in the run's
 * options (kept in the report's `config`), else the options it would take to run it again.
 */
export function commandOf(report: {
  config?: {
    command_comment?: unknown;
    mutate?: unknown;
    concurrency?: unknown;
    timeoutMS?: unknown;
  };
}): string {
  const c = report.config;
  if (typeof c?.command_comment === 'string') return c.command_comment;
  if (Array.isArray(c?.mutate))
    return `npx stryker run --concurrency ${String(c.concurrency)} --timeoutMS ${String(c.timeoutMS)} --mutate ${c.mutate.join(',')} (test selection not recorded)`;
  return 'not recorded';
}

/** Replaces the block between `begin` and `end` of `doc`; null when the markers are missing. */
function replaceBlock(doc: string, begin: string, end: string, text: string): string | null {
  const a = doc.indexOf(begin);
  const b = doc.indexOf(end);
  if (a < 0 || b < a) return null;
  return doc.slice(0, a) + text + doc.slice(b + end.length);
}

const USAGE =
  'Usage: node dist/src/docs-gen/main.js mutation [--report FILE ...] [--reasons FILE] [--runs FILE] [--write FILE]\n' +
  `  --report FILE  a Stryker JSON report; repeat it to merge several (later ones win per file).\n` +
  `                 Default: every report in ${RUNS_DIR}/, newest winning per file.\n` +
  `  --runs FILE    the tracked summary of the runs (default ${RUNS_FILE}): read for the files no\n` +
  '                 report covers, and written back with --write\n' +
  '  --reasons FILE the equivalence reasons (default docs/mutation-equivalents.json)\n' +
  '  --write FILE   replace the blocks between the mutation markers of FILE (default: print them)\n' +
  '  --strict       refuse a row whose code changed since its run (default: mark it)\n' +
  '  --draft        write the page even when survivors have no reason (marked "not examined yet")\n';

/**
 * `node dist/src/docs-gen/main.js mutation ARGS` (./main.ts): merges the summary and the reports,
 * prints the blocks or writes them into `--write FILE` (and the summary into `--runs FILE`); the
 * exit status (0, 1 for a survivor without a reason, 2 for bad input).
 */
export async function mutationDocsMain(args: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        report: { type: 'string', multiple: true },
        reasons: { type: 'string', default: 'docs/mutation-equivalents.json' },
        runs: { type: 'string', default: RUNS_FILE },
        write: { type: 'string' },
        strict: { type: 'boolean' },
        draft: { type: 'boolean' },
        help: { type: 'boolean' },
      },
    }));
  } catch (e) {
    process.stderr.write(`mutation-docs: ${(e as Error).message.split('\n')[0]}\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const paths = values.report ?? runReports();
  let reports: DatedReport[];
  let reasons: Record<string, string>;
  let kept: MutationRuns = { files: {} };
  try {
    reports = paths.map((name) => {
      const report = JSON.parse(readFileSync(name, 'utf8')) as Report;
      const date = statSync(name)
        .mtime.toISOString()
        .replace(/\.\d+Z$/, 'Z');
      return { name, report, date, command: commandOf(report) };
    });
    reasons = JSON.parse(readFileSync(values.reasons!, 'utf8')) as Record<string, string>;
    let keptText: string | undefined;
    try {
      keptText = readFileSync(values.runs!, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
    if (keptText !== undefined) kept = JSON.parse(keptText) as MutationRuns;
    if (typeof kept?.files !== 'object' || kept.files === null)
      throw new Error(`${values.runs}: no "files" object`);
  } catch (e) {
    process.stderr.write(`mutation-docs: ${(e as Error).message.split('\n')[0]}\n`);
    return 2;
  }
  if (reports.length === 0 && Object.keys(kept.files).length === 0) {
    process.stderr.write(
      `mutation-docs: no run: neither ${values.runs} nor a report (run \`npm run mutation\` first; reports go to ${RUNS_DIR}/), or name one with --report\n`,
    );
    return 2;
  }
  const runs = mergeRuns(kept, reports);
  const states = codeStates(runs, (file) => {
    try {
      return readFileSync(file, 'utf8');
    } catch {
      return undefined;
    }
  });
  const changed = [...states].filter(([, s]) => s !== 'as run').map(([f]) => f);
  if (changed.length > 0) {
    process.stderr.write(
      `mutation-docs: ${changed.length} file(s) changed since their run${values.strict ? '' : ' (marked in the table)'}; run Stryker on them again:\n${changed.map((f) => `  ${f} (run of ${runs.files[f]!.date})`).join('\n')}\n`,
    );
    if (values.strict) return 2;
  }
  // The files Stryker is set to mutate (stryker.config.mjs) that no run covers are listed too,
  // so that a file missing from the table reads as "not measured", not as "not mutation-tested".
  // The task streams' files (`taskFiles`) have their own block when the page has its markers.
  let mutate: string[] = [];
  let taskFiles: string[] = [];
  try {
    const config = (await import(pathToFileURL(resolve('stryker.config.mjs')).href)) as {
      default?: { mutate?: string[] };
      taskFiles?: string[];
    };
    mutate = config.default?.mutate ?? [];
    taskFiles = config.taskFiles ?? [];
  } catch {
    mutate = [];
  }
  const doc = values.write === undefined ? undefined : readFileSync(values.write, 'utf8');
  const split = doc === undefined || doc.includes(TASKS_BEGIN);
  const isTask = (f: string) => split && taskFiles.includes(f);
  const part = (task: boolean): MutationRuns => ({
    files: Object.fromEntries(Object.entries(runs.files).filter(([f]) => isTask(f) === task)),
  });
  const main = mutationBlock(
    part(false),
    reasons,
    states,
    mutate.filter((f) => !isTask(f)),
  );
  const tasks = split
    ? mutationBlock(part(true), reasons, states, mutate.filter(isTask), [TASKS_BEGIN, TASKS_END])
    : undefined;
  const missing = [...main.missing, ...(tasks?.missing ?? [])];
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
  if (doc === undefined) {
    process.stdout.write(main.text + '\n' + (tasks ? '\n' + tasks.text + '\n' : ''));
    return 0;
  }
  let page = replaceBlock(doc, MUTATION_BEGIN, MUTATION_END, main.text);
  if (page !== null && tasks) page = replaceBlock(page, TASKS_BEGIN, TASKS_END, tasks.text);
  if (page === null) {
    process.stderr.write(`mutation-docs: no mutation markers in ${values.write}\n`);
    return 2;
  }
  writeFileSync(values.write!, page);
  writeFileSync(values.runs!, runsJson(runs));
  process.stdout.write(
    `mutation scores written to ${values.write} (runs kept in ${values.runs})\n`,
  );
  return 0;
}
