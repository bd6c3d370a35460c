/**
 * The renderers of the conformance report: a run as terminal text or as Markdown (the block
 * docs/conformance.md holds), a table of cells, one cell as a line.
 */
import type { JudgedCell, MatrixOptions } from './matrix.js';
import type { CellVerdict } from './types.js';

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
  return cells.map((c) => `- ${cellLine(c, '**')}`);
}

function cellLine(c: JudgedCell, strong: string): string {
  const head = `${strong}${c.implementation} × ${c.scenario}${strong}`;
  return c.verdict === 'n/a'
    ? `${head}: not run: ${c.reason ?? ''}`
    : `${head}: ${c.verdict}${c.security ? ' (SECURITY: cross-session data)' : ''}. ` +
        `Observed: ${c.observed}. ${oracleText(c)}.`;
}

/**
 * One cell as one line of plain text: implementation × scenario, the verdict, what was
 * observed and the trace oracle's reading (the lines of the report's "every cell" list).
 */
export function renderCell(cell: JudgedCell): string {
  return cellLine(cell, '');
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
    `Reference rows (ContinuityEventStore, continuityGuard) with silent loss, leak, hang or error: ${r.referenceViolations.length}.`,
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
    ...[...r.servers, ...r.clients].map((c) => `- ${renderCell(c)}`),
    '',
    `verdicts: ${Object.entries(r.tally)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
    `reference rows with silent loss, leak, hang or error: ${r.referenceViolations.length}`,
  ].join('\n');
}
