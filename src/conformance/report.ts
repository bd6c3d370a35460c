/**
 * The conformance report: runs the server matrix and the client rows, and renders them as
 * terminal text, Markdown (for docs/conformance.md) or JSON.
 */
import { CLIENT_IMPLEMENTATIONS, clientVersions, runClientMatrix } from './client-rows.js';
import { SERVER_IMPLEMENTATIONS } from './implementations.js';
import { runMatrix, tally, type JudgedCell, type MatrixOptions } from './matrix.js';
import { SCENARIOS } from './scenarios.js';
import type { CellVerdict } from './types.js';
import { packageVersion } from './versions.js';

/** A whole run. */
export interface ConformanceReport {
  /** ISO date-time of the run. */
  date: string;
  /** Package versions under test, and Node's. */
  versions: Record<string, string>;
  settings: Required<Pick<MatrixOptions, 'keepAliveMs' | 'retention' | 'timeoutMs' | 'idleMs'>>;
  /** Server rows × scenarios. */
  servers: JudgedCell[];
  /** Client rows × scenarios. */
  clients: JudgedCell[];
  tally: Record<CellVerdict, number>;
  /** Cells of the reference rows (ContinuityEventStore, continuityGuard) that are not allowed. */
  referenceViolations: JudgedCell[];
}

/** Options of {@link runConformance}. */
export interface ConformanceOptions extends MatrixOptions {
  /** Scenario or implementation names to run (all when absent). */
  only?: string[];
  /** Called after each cell (progress). */
  onCell?: (cell: JudgedCell) => void;
}

/** `true` for the rows that must never lose, leak or hang: the project's store and guard. */
export function isReferenceRow(name: string): boolean {
  return name.endsWith('+continuity') || name.includes('+guard');
}

const BAD: readonly CellVerdict[] = ['silent loss', 'leak', 'hang'];

/** The names `--only` accepts: scenarios, and implementation rows (or their prefixes). */
export function unknownNames(only: readonly string[]): string[] {
  const scenarios = SCENARIOS.map((s) => s.name);
  const rows = [...SERVER_IMPLEMENTATIONS, ...CLIENT_IMPLEMENTATIONS].map((r) => r.name);
  return only.filter((n) => !scenarios.includes(n) && !rows.some((r) => r.startsWith(n)));
}

/** Runs everything (or what `only` names). */
export async function runConformance(options: ConformanceOptions = {}): Promise<ConformanceReport> {
  const settings = {
    keepAliveMs: options.keepAliveMs ?? 100,
    retention: options.retention ?? 16,
    timeoutMs: options.timeoutMs ?? 2000,
    idleMs: options.idleMs ?? 400,
  };
  const only = options.only;
  const scenarioNames = SCENARIOS.map((s) => s.name);
  const scenarioFilter = only?.filter((n) => scenarioNames.includes(n));
  const rowFilter = only?.filter((n) => !scenarioNames.includes(n));
  const pick = <T extends { name: string }>(rows: readonly T[]) =>
    rowFilter && rowFilter.length > 0
      ? rows.filter((r) => rowFilter.some((f) => r.name === f || r.name.startsWith(f)))
      : rows;
  const o = { ...settings, ...(scenarioFilter?.length ? { only: scenarioFilter } : {}) };
  const servers = await runMatrix(pick(SERVER_IMPLEMENTATIONS), o, options.onCell);
  const clients = await runClientMatrix(pick(CLIENT_IMPLEMENTATIONS), o, options.onCell);
  const versions: Record<string, string> = {
    '@modelcontextprotocol/sdk': packageVersion('@modelcontextprotocol/sdk'),
    '@modelcontextprotocol/server': packageVersion('@modelcontextprotocol/server'),
    ...clientVersions(),
    'mcp-proxy': packageVersion('mcp-proxy'),
    'eventsource-parser': packageVersion('eventsource-parser'),
    node: process.version,
  };
  const all = [...servers, ...clients];
  return {
    date: new Date().toISOString(),
    versions,
    settings,
    servers,
    clients,
    tally: tally(all),
    referenceViolations: all.filter(
      (c) => isReferenceRow(c.implementation) && BAD.includes(c.verdict),
    ),
  };
}

function rowsOf(cells: readonly JudgedCell[]): string[] {
  return [...new Set(cells.map((c) => c.implementation))];
}

function columnsOf(cells: readonly JudgedCell[]): string[] {
  return [...new Set(cells.map((c) => c.scenario))];
}

function cellAt(cells: readonly JudgedCell[], row: string, col: string): JudgedCell | undefined {
  return cells.find((c) => c.implementation === row && c.scenario === col);
}

function mark(c: JudgedCell | undefined): string {
  if (!c) return '';
  const flags = `${c.security ? ' ⚠' : ''}${c.oracle && !c.oracle.agrees ? ' †' : ''}`;
  return `${c.verdict}${flags}`;
}

function oracleText(c: JudgedCell): string {
  const o = c.oracle;
  if (!o) return 'oracle: no trace';
  if (o.error) return `oracle: could not read the trace (${o.error})`;
  const outcomes = o.outcomes.length ? o.outcomes.join(' → ') : 'no reconnect';
  const extra = [
    o.breaks ? `${o.breaks} break(s)` : '',
    o.cursorAhead ? `${o.cursorAhead} cursor(s) ahead` : '',
  ]
    .filter(Boolean)
    .join(', ');
  const head = `oracle: ${outcomes}${extra ? ` (${extra})` : ''}`;
  return o.agrees ? `${head}; agrees` : `${head}; DISAGREES: ${o.note ?? ''}`;
}

/** A Markdown table of cells: rows × scenarios. */
export function markdownTable(cells: readonly JudgedCell[]): string {
  if (cells.length === 0) return '(none run)';
  const cols = columnsOf(cells);
  const lines = [
    `| implementation | ${cols.join(' | ')} |`,
    `| --- | ${cols.map(() => '---').join(' | ')} |`,
  ];
  for (const row of rowsOf(cells)) {
    lines.push(`| ${row} | ${cols.map((col) => mark(cellAt(cells, row, col))).join(' | ')} |`);
  }
  return lines.join('\n');
}

function cellLines(cells: readonly JudgedCell[]): string[] {
  return cells.map((c) =>
    c.verdict === 'n/a'
      ? `- **${c.implementation} × ${c.scenario}**: not run: ${c.reason ?? ''}`
      : `- **${c.implementation} × ${c.scenario}**: ${c.verdict}${c.security ? ' (SECURITY: cross-session data)' : ''}. ` +
        `Observed: ${c.observed}. ${oracleText(c)}.`,
  );
}

/** The report as Markdown (the block docs/conformance.md holds between its markers). */
export function renderMarkdown(r: ConformanceReport): string {
  const versions = Object.entries(r.versions)
    .map(([k, v]) => `\`${k}\` ${v}`)
    .join(', ');
  return [
    `Run of ${r.date.slice(0, 10)} (${r.date}). Versions: ${versions}.`,
    `Settings: keepalive ${r.settings.keepAliveMs} ms, retention ${r.settings.retention} events, ` +
      `request bound ${r.settings.timeoutMs} ms, silence bound ${r.settings.idleMs} ms.`,
    '',
    '### Servers',
    '',
    markdownTable(r.servers),
    '',
    '### Clients (SDK client transport driven through a real tool call)',
    '',
    markdownTable(r.clients),
    '',
    '⚠: security finding (another session’s messages were replayed). †: the trace oracle and the ground truth disagree (see the cell).',
    '',
    '### Every cell',
    '',
    ...cellLines([...r.servers, ...r.clients]),
    '',
    `Reference rows (ContinuityEventStore, continuityGuard) with silent loss, leak or hang: ${r.referenceViolations.length}.`,
  ].join('\n');
}

function pad(s: string, n: number): string {
  return s.length >= n ? s : s + ' '.repeat(n - s.length);
}

function textTable(cells: readonly JudgedCell[]): string[] {
  if (cells.length === 0) return ['  (none)'];
  const cols = columnsOf(cells);
  const rows = rowsOf(cells);
  const w0 = Math.max(14, ...rows.map((r) => r.length)) + 2;
  const widths = cols.map(
    (c) => Math.max(c.length, ...rows.map((r) => mark(cellAt(cells, r, c)).length)) + 2,
  );
  return [
    pad('', w0) + cols.map((c, i) => pad(c, widths[i]!)).join(''),
    ...rows.map(
      (r) => pad(r, w0) + cols.map((c, i) => pad(mark(cellAt(cells, r, c)), widths[i]!)).join(''),
    ),
  ];
}

/** The report for a terminal. */
export function renderText(r: ConformanceReport): string {
  return [
    `mcp-resumption conformance, ${r.date}`,
    `versions: ${Object.entries(r.versions)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
    `settings: keepalive ${r.settings.keepAliveMs} ms, retention ${r.settings.retention}, request bound ${r.settings.timeoutMs} ms`,
    '',
    'servers:',
    ...textTable(r.servers),
    '',
    'clients:',
    ...textTable(r.clients),
    '',
    '⚠ security finding   † oracle and ground truth disagree',
    '',
    ...cellLines([...r.servers, ...r.clients]).map((l) => l.replace(/\*\*/g, '')),
    '',
    `verdicts: ${Object.entries(r.tally)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
    `reference rows with silent loss, leak or hang: ${r.referenceViolations.length}`,
  ].join('\n');
}

/** The markers of the generated block in docs/conformance.md. */
export const DOC_BEGIN = '<!-- conformance:begin (generated by `npm run conformance:docs`) -->';
/** End marker of the generated block. */
export const DOC_END = '<!-- conformance:end -->';

/** Replaces the generated block of `doc` with `block`; throws when the markers are missing. */
export function replaceDocBlock(doc: string, block: string): string {
  const begin = doc.indexOf(DOC_BEGIN);
  const end = doc.indexOf(DOC_END);
  if (begin < 0 || end < begin) throw new Error('markers not found');
  return doc.slice(0, begin + DOC_BEGIN.length) + '\n\n' + block + '\n\n' + doc.slice(end);
}
