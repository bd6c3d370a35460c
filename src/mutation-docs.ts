/**
 * `npm run mutation:docs`: the mutation scores of the last `npm run mutation` (Stryker's JSON
 * report, reports/mutation/mutation.json) as a Markdown table, and every surviving mutant with
 * the reason it is equivalent, written between the markers of docs/mutation.md. The reasons are a
 * person's, kept in docs/mutation-equivalents.json: a survivor without one fails the command, so
 * the page never calls a mutant equivalent that nobody looked at.
 *
 * Usage: node dist/src/mutation-docs.js [--report FILE] [--reasons FILE] [--write FILE]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { alignedTable } from '../model/markdown.js';

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
    ]);
    for (const m of mutants.filter((x) => UNDETECTED.has(x.status))) {
      const key = reasonKey(file, m, source);
      const reason = reasons[key];
      if (reason === undefined) missing.push(key);
      const where = `${file}:${m.location.start.line}:${m.location.start.column}`;
      survivors.push(
        `- \`${where}\` ${m.mutatorName} (${m.status}): \`${clip(original(source, m))}\` → \`${clip(m.replacement ?? '')}\`. ${reason ?? '**no reason given**'}`,
      );
    }
  }
  const table = alignedTable(
    ['file', 'score', 'killed', 'timeout', 'survived', 'no coverage'],
    rows,
    [false, true, true, true, true, true],
  );
  const text = [
    MUTATION_BEGIN,
    '',
    table,
    '',
    survivors.length === 0 ? 'No mutant survived.' : 'Surviving mutants, each equivalent:',
    '',
    ...survivors,
    ...(survivors.length ? [''] : []),
    MUTATION_END,
  ].join('\n');
  return { text, missing };
}

function main(): number {
  const { values } = parseArgs({
    options: {
      report: { type: 'string', default: 'reports/mutation/mutation.json' },
      reasons: { type: 'string', default: 'docs/mutation-equivalents.json' },
      write: { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    process.stdout.write(
      'Usage: node dist/src/mutation-docs.js [--report FILE] [--reasons FILE] [--write FILE]\n',
    );
    return 0;
  }
  let report: Report;
  let reasons: Record<string, string>;
  try {
    report = JSON.parse(readFileSync(values.report!, 'utf8')) as Report;
    reasons = JSON.parse(readFileSync(values.reasons!, 'utf8')) as Record<string, string>;
  } catch (e) {
    process.stderr.write(`mutation-docs: ${(e as Error).message.split('\n')[0]}\n`);
    return 2;
  }
  const { text, missing } = mutationBlock(report, reasons);
  if (missing.length > 0) {
    process.stderr.write(
      `mutation-docs: ${missing.length} surviving mutant(s) without a reason in ${values.reasons}:\n${missing.map((k) => `  ${JSON.stringify(k)}`).join('\n')}\n`,
    );
    return 1;
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

if (import.meta.url === `file://${process.argv[1]}`) process.exitCode = main();
