/**
 * The renderers of the conformance report: a run as terminal text or as Markdown (the block
 * docs/conformance-cells.md holds), a table of cells, one cell as a line.
 */
import type { JudgedCell, MatrixOptions } from '../rows/matrix.js';
import { ROW_REASONS, type CellVerdict } from '../types.js';
import { TEXT_LEGEND } from './legend.js';

/** A whole run. */
export interface ConformanceReport {
  /** ISO date-time of the run. */
  date: string;
  /** Package versions under test, and Node's. */
  versions: Record<string, string>;
  /**
   * The settings of the run. `keepAliveMs` is there only when it applied: given by the user
   * (`--keepalive-ms`), or set by the harness on the servers it starts (the built-in matrix);
   * a report never states a keepalive interval nobody gave.
   */
  settings: Required<Pick<MatrixOptions, 'retention' | 'timeoutMs' | 'idleMs'>> &
    Pick<MatrixOptions, 'keepAliveMs'>;
  /** Server rows × scenarios. */
  servers: JudgedCell[];
  /** Client rows × scenarios. */
  clients: JudgedCell[];
  /** Rows across instances (two instances behind a round-robin front) × their scenarios. */
  multi?: JudgedCell[];
  tally: Record<CellVerdict, number>;
  /** The verdicts that fail the run (`--fail-on`). */
  failOn: CellVerdict[];
  /** Which rows `failOn` applies to, in words ("every row", "the reference rows …"). */
  failScope: string;
  /** The cells, within {@link failScope}, whose verdict is in {@link failOn}: exit status 1. */
  failures: JudgedCell[];
}

/** One cell in the flat list of `--json` (`cells`), for a CI script to filter. */
export interface FlatCell {
  /** The row (its implementation's name). */
  row: string;
  /** The row again, under its former name (kept for scripts written against it). */
  implementation: string;
  scenario: string;
  verdict: CellVerdict;
  observed: string;
  /** Why it was not run, or the row's missing capability (`n/a`, some `rejected`). */
  reason?: string;
  /** Another session's data was replayed. */
  security?: boolean;
  /** The protocol version the server answered. */
  protocolVersion?: string;
  /** Whether the trace oracle agrees with the ground truth (absent: no trace). */
  oracleAgrees?: boolean;
  /** Where they disagree, or what the oracle had to judge. */
  oracleNote?: string;
  /** Whether the cell fails the run (`--fail-on`, within its scope). */
  failed: boolean;
  /** For a failing verdict: what to change, in one line. */
  fix?: string;
  /**
   * Something wrong beside the verdict, in one line (after-restart: an unknown session answered
   * 400, not 404, so no client re-initializes).
   */
  finding?: string;
  ms: number;
}

/** What to change, one line per verdict that is a failure of the server under test. */
export const SERVER_FIX: Partial<Record<CellVerdict, string>> = {
  'silent loss':
    'change the server: replay every event after Last-Event-ID before any new one, or refuse a ' +
    'cursor it cannot replay with a distinguishable status (404, 409, 410), never a 200 that ' +
    'skips (ContinuityEventStore from mcp-resumption/runtime does it for an SDK server)',
  leak:
    "change the server: write a call's messages only to that call's stream, in its own " +
    "session, and replay only the cursor's own stream",
  hang:
    'change the server: answer every request and every resume within the bound, with the ' +
    'stream or a refusal',
  error:
    'change the server or the setup: the cell names what the harness got (serve the test tool ' +
    'contract; answer initialize and tools/call as the spec says)',
};

/**
 * What to change for a silent loss where nothing reconnected (reader-stall): the stream itself
 * lost messages, so the line about `Last-Event-ID` would not fit.
 */
export const SERVER_FIX_NO_RECONNECT =
  'change the server: keep every message of a call on its stream while the reader is slow ' +
  '(queue behind backpressure; never drop, reorder or repeat one): nothing reconnected here';

/** What to change for cell `c`, in one line (`undefined`: nothing to say for its verdict). */
export function serverFix(c: JudgedCell): string | undefined {
  if (c.verdict === 'silent loss' && c.reconnects.length === 0) return SERVER_FIX_NO_RECONNECT;
  return SERVER_FIX[c.verdict];
}

/** Every cell of `r` (servers, clients, across instances) as one flat list. */
export function flatCells(r: ConformanceReport): FlatCell[] {
  const failing = new Set(r.failures);
  return [...r.servers, ...r.clients, ...(r.multi ?? [])].map((c) => ({
    row: c.implementation,
    implementation: c.implementation,
    scenario: c.scenario,
    verdict: c.verdict,
    observed: c.observed,
    ...(c.reason !== undefined ? { reason: c.reason } : {}),
    ...(c.security ? { security: true } : {}),
    ...(c.protocolVersion !== undefined ? { protocolVersion: c.protocolVersion } : {}),
    ...(c.oracle ? { oracleAgrees: c.oracle.agrees } : {}),
    ...(c.oracle?.note !== undefined ? { oracleNote: c.oracle.note } : {}),
    failed: failing.has(c),
    ...(c.finding !== undefined ? { finding: c.finding } : {}),
    ...(failing.has(c) && serverFix(c) !== undefined ? { fix: serverFix(c)! } : {}),
    ms: c.ms,
  }));
}

/** The verdicts that fail a run unless `--fail-on` says otherwise. */
export const DEFAULT_FAIL_ON: readonly CellVerdict[] = ['silent loss', 'leak', 'hang'];

/** The protocol version(s) a row's cells negotiated (`—`: no cell got that far). */
export function rowProtocol(cells: readonly JudgedCell[], row: string): string {
  const versions = [
    ...new Set(
      cells
        .filter((c) => c.implementation === row && c.protocolVersion)
        .map((c) => c.protocolVersion),
    ),
  ];
  return versions.length ? versions.join(', ') : '—';
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
    `| implementation | protocol | ${cols.join(' | ')} |`,
    `| --- | --- | ${cols.map(() => '---').join(' | ')} |`,
  ];
  for (const row of rowsOf(cells)) {
    const marks = cols.map((col) => mark(cellAt(cells, row, col)));
    lines.push(`| ${row} | ${rowProtocol(cells, row)} | ${marks.join(' | ')} |`);
  }
  return lines.join('\n');
}

function cellLines(cells: readonly JudgedCell[]): string[] {
  return cellList(cells, '**').map((l) => `- ${l}`);
}

/**
 * The "every cell" list: one line per cell, except that a row's cells not judged for one
 * missing capability (its events carry no ids) are one line for the row, naming them.
 */
function cellList(cells: readonly JudgedCell[], strong: string): string[] {
  const out: string[] = [];
  const stated = new Set<string>();
  const notResumable = (c: JudgedCell) =>
    c.verdict === 'n/a' && c.reason !== undefined && ROW_REASONS.includes(c.reason);
  for (const c of cells) {
    if (!notResumable(c)) {
      out.push(cellLine(c, strong));
      continue;
    }
    if (stated.has(`${c.implementation}\n${c.reason}`)) continue;
    stated.add(`${c.implementation}\n${c.reason}`);
    const which = cells
      .filter((x) => x.implementation === c.implementation && x.reason === c.reason)
      .map((x) => x.scenario);
    out.push(`${strong}${c.implementation}${strong}: ${c.reason}; not judged: ${which.join(', ')}`);
  }
  return out;
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

/** The report as Markdown (the block docs/conformance-cells.md holds between its markers). */
export function renderMarkdown(r: ConformanceReport): string {
  const versions = Object.entries(r.versions)
    .map(([k, v]) => `\`${k}\` ${v}`)
    .join(', ');
  return [
    `Run of ${r.date.slice(0, 10)} (${r.date}). Versions: ${versions}.`,
    `Settings: ${keepalive(r)}retention ${r.settings.retention} events, ` +
      `request bound ${r.settings.timeoutMs} ms, silence bound ${r.settings.idleMs} ms.`,
    '',
    '### Servers',
    '',
    markdownTable(r.servers),
    '',
    ...(r.clients.length
      ? [
          '### Clients (SDK client transport driven through a real tool call)',
          '',
          markdownTable(r.clients),
          '',
        ]
      : []),
    ...(r.multi?.length
      ? [
          '### Across instances (two instances behind a round-robin front, no stickiness)',
          '',
          markdownTable(r.multi),
          '',
        ]
      : []),
    '⚠: security finding (another session’s messages were replayed). †: the trace oracle and the ground truth disagree (see the cell).',
    '',
    '### Every cell',
    '',
    ...cellLines([...r.servers, ...r.clients, ...(r.multi ?? [])]),
    '',
    `Cells of ${r.failScope} with ${r.failOn.join(', ')}: ${r.failures.length}.`,
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
  const wp = Math.max(8, ...rows.map((r) => rowProtocol(cells, r).length)) + 2;
  const widths = cols.map(
    (c) => Math.max(c.length, ...rows.map((r) => mark(cellAt(cells, r, c)).length)) + 2,
  );
  return [
    pad('', w0) + pad('protocol', wp) + cols.map((c, i) => pad(c, widths[i]!)).join(''),
    ...rows.map(
      (r) =>
        pad(r, w0) +
        pad(rowProtocol(cells, r), wp) +
        cols.map((c, i) => pad(mark(cellAt(cells, r, c)), widths[i]!)).join(''),
    ),
  ];
}

/** One line per distinct fix among the failures, then one per finding: what to change. */
function fixLines(r: ConformanceReport): string[] {
  const fixes = new Map<string, string>();
  for (const c of r.failures) {
    const fix = serverFix(c);
    if (fix !== undefined && !fixes.has(fix)) fixes.set(fix, c.verdict);
  }
  const lines = [...fixes].map(([fix, v]) => `fix (${v}): ${fix}`);
  const all = [...r.servers, ...r.clients, ...(r.multi ?? [])];
  for (const c of all) {
    if (c.finding !== undefined)
      lines.push(`finding (${c.implementation} × ${c.scenario}): ${c.finding}`);
  }
  return lines.length ? ['', ...lines] : [];
}

/** `keepalive N ms, ` when the run had one (see {@link ConformanceReport.settings}). */
function keepalive(r: ConformanceReport): string {
  return r.settings.keepAliveMs === undefined ? '' : `keepalive ${r.settings.keepAliveMs} ms, `;
}

/** The report for a terminal. */
export function renderText(r: ConformanceReport): string {
  return [
    `mcp-resumption conformance, ${r.date}`,
    `versions: ${Object.entries(r.versions)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
    `settings: ${keepalive(r)}retention ${r.settings.retention}, request bound ${r.settings.timeoutMs} ms`,
    '',
    'servers:',
    ...textTable(r.servers),
    '',
    ...(r.clients.length ? ['clients:', ...textTable(r.clients), ''] : []),
    ...(r.multi?.length ? ['across instances:', ...textTable(r.multi), ''] : []),
    ...TEXT_LEGEND,
    '',
    ...cellList([...r.servers, ...r.clients, ...(r.multi ?? [])], '').map((l) => `- ${l}`),
    ...fixLines(r),
    '',
    `verdicts: ${Object.entries(r.tally)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
    `cells of ${r.failScope} with ${r.failOn.join(', ') || 'a failing verdict (none: --fail-on none)'}: ${r.failures.length}`,
  ].join('\n');
}

/** Drops what XML 1.0 forbids: C0 controls other than tab, newline and carriage return. */
function xmlChars(s: string): string {
  return [...s].filter((c) => c >= ' ' || c === '\t' || c === '\n' || c === '\r').join('');
}

function xml(s: string): string {
  return xmlChars(s)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

/**
 * The report as JUnit XML for CI: one `testsuite` per row, one `testcase` per cell. A cell of
 * {@link ConformanceReport.failures} is a `failure`; `n/a` is `skipped` with its reason; every
 * case carries the observed answer and the oracle's reading in `system-out`.
 */
export function renderJunit(r: ConformanceReport): string {
  const cells = [...r.servers, ...r.clients];
  const failing = new Set(r.failures);
  const suites = rowsOf(cells).map((row) => {
    const mine = cells.filter((c) => c.implementation === row);
    const failures = mine.filter((c) => failing.has(c)).length;
    const skipped = mine.filter((c) => c.verdict === 'n/a').length;
    const time = mine.reduce((t, c) => t + c.ms, 0) / 1000;
    const cases = mine.map((c) => {
      const head = `    <testcase classname="${xml(row)}" name="${xml(c.scenario)}" time="${(c.ms / 1000).toFixed(3)}">`;
      const out = `      <system-out>${xml(`${c.verdict}: ${c.observed}. ${oracleText(c)}.`)}</system-out>`;
      const body =
        c.verdict === 'n/a'
          ? [`      <skipped message="${xml(c.reason ?? 'not run')}"/>`]
          : failing.has(c)
            ? [
                `      <failure type="${xml(c.verdict)}" message="${xml(`${c.verdict}: ${c.observed}`)}">${xml(c.trace.join('\n'))}</failure>`,
              ]
            : [];
      return [head, ...body, out, '    </testcase>'].join('\n');
    });
    return [
      `  <testsuite name="${xml(row)}" tests="${mine.length}" failures="${failures}" errors="0" skipped="${skipped}" time="${time.toFixed(3)}" timestamp="${xml(r.date)}">`,
      ...cases,
      '  </testsuite>',
    ].join('\n');
  });
  const total = cells.length;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="mcp-resumption conformance" tests="${total}" failures="${r.failures.length}">`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}

/** The begin marker of the generated block `name` in a docs page. */
export function docBegin(name: string, command: string): string {
  return `<!-- ${name}:begin (generated by \`${command}\`) -->`;
}

/** The end marker of the generated block `name`. */
export function docEnd(name: string): string {
  return `<!-- ${name}:end -->`;
}

/**
 * Replaces the generated block `name` of `doc` (between `<!-- name:begin … -->` and
 * `<!-- name:end -->`) with `block`; `null` when the markers are missing.
 */
export function replaceGeneratedBlock(doc: string, name: string, block: string): string | null {
  const beginAt = doc.indexOf(`<!-- ${name}:begin`);
  if (beginAt < 0) return null;
  const beginEnd = doc.indexOf('-->', beginAt);
  const end = doc.indexOf(docEnd(name), beginEnd);
  if (beginEnd < 0 || end < 0) return null;
  return doc.slice(0, beginEnd + 3) + '\n\n' + block + '\n\n' + doc.slice(end);
}
