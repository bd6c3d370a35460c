/**
 * The conformance report: runs the server matrix and the client rows of the CLI (the
 * renderers are in ./render.ts, which needs none of the implementations under test).
 */
import { CLIENT_IMPLEMENTATIONS, clientVersions, runClientMatrix } from './client-rows.js';
import { SERVER_IMPLEMENTATIONS } from './implementations.js';
import { runMatrix, tally, type JudgedCell, type MatrixOptions } from './matrix.js';
import { SCENARIOS } from '../scenarios/index.js';
import { stopHarnessRedis } from '../adapters/multi-instance.js';
import {
  MULTI_INSTANCE_ROWS,
  MULTI_INSTANCE_SCENARIOS,
  runMultiInstanceMatrix,
} from './multi-rows.js';
import { DEFAULT_FAIL_ON, type ConformanceReport } from '../rendering/render.js';
import type { CellVerdict } from '../types.js';
import { packageVersion } from '../versions.js';

export {
  markdownTable,
  renderJunit,
  renderMarkdown,
  renderText,
  type ConformanceReport,
} from '../rendering/render.js';

/** Options of {@link runConformance}. */
export interface ConformanceOptions extends MatrixOptions {
  /** Scenario or implementation names to run (all when absent). */
  only?: string[];
  /** Called after each cell (progress). */
  onCell?: (cell: JudgedCell) => void;
  /** Verdicts that fail the run on a reference row (default silent loss, leak, hang). */
  failOn?: readonly CellVerdict[];
}

/** `true` for the rows that must never lose, leak or hang: the project's store and guard. */
export function isReferenceRow(name: string): boolean {
  return name.endsWith('+continuity') || name.includes('+guard');
}

/** The names `--only` accepts: scenarios, and implementation rows (or their prefixes). */
export function unknownNames(only: readonly string[]): string[] {
  const scenarios = [...SCENARIOS, ...MULTI_INSTANCE_SCENARIOS].map((s) => s.name);
  const rows = [...SERVER_IMPLEMENTATIONS, ...CLIENT_IMPLEMENTATIONS, ...MULTI_INSTANCE_ROWS].map(
    (r) => r.name,
  );
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
  // `--only` runs exactly what it names: the scenarios named (all when none is), on the rows
  // named (all when none is); a row filter that names no row of a kind runs nothing of it.
  const only = options.only;
  const scenarioNames = SCENARIOS.map((s) => s.name);
  const multiScenarios = MULTI_INSTANCE_SCENARIOS.map((s) => s.name);
  const scenarioFilter = only?.filter((n) => scenarioNames.includes(n));
  const multiOnly = only?.filter((n) => multiScenarios.includes(n));
  const rowFilter = only?.filter((n) => !scenarioNames.includes(n) && !multiScenarios.includes(n));
  // Only scenarios of the instances' matrix were named: the single-instance rows run nothing.
  const singleWanted = !only || (scenarioFilter?.length ?? 0) > 0 || (multiOnly?.length ?? 0) === 0;
  const pick = <T extends { name: string }>(rows: readonly T[]) =>
    rowFilter && rowFilter.length > 0
      ? rows.filter((r) => rowFilter.some((f) => r.name === f || r.name.startsWith(f)))
      : rows;
  const o = {
    ...settings,
    ...(options.protocolVersion !== undefined ? { protocolVersion: options.protocolVersion } : {}),
    ...(scenarioFilter?.length ? { only: scenarioFilter } : {}),
  };
  const servers = singleWanted
    ? await runMatrix(pick(SERVER_IMPLEMENTATIONS), o, options.onCell)
    : [];
  const clients = singleWanted
    ? await runClientMatrix(pick(CLIENT_IMPLEMENTATIONS), o, options.onCell)
    : [];
  const multiRows = MULTI_INSTANCE_ROWS.map((r) => r.name);
  const multiRowFilter = rowFilter;
  const rowsWanted =
    (multiRowFilter ?? []).length === 0 ||
    (multiRowFilter ?? []).some((f) => multiRows.some((r) => r.startsWith(f)));
  const scenariosWanted = (multiOnly?.length ?? 0) > 0 || (scenarioFilter?.length ?? 0) === 0;
  const wantMulti = !only || (rowsWanted && scenariosWanted);
  const multi = wantMulti
    ? await runMultiInstanceMatrix(
        {
          ...settings,
          ...(multiOnly?.length ? { only: multiOnly } : {}),
          ...(multiRowFilter?.length ? { rows: multiRowFilter } : {}),
        },
        options.onCell,
      )
    : [];
  await stopHarnessRedis();
  const versions: Record<string, string> = {
    '@modelcontextprotocol/sdk': packageVersion('@modelcontextprotocol/sdk'),
    '@modelcontextprotocol/server': packageVersion('@modelcontextprotocol/server'),
    ...clientVersions(),
    'mcp-proxy': packageVersion('mcp-proxy'),
    redis: packageVersion('redis'),
    'eventsource-parser': packageVersion('eventsource-parser'),
    node: process.version,
  };
  const all = [...servers, ...clients, ...multi];
  const failOn = [...(options.failOn ?? DEFAULT_FAIL_ON)];
  return {
    date: new Date().toISOString(),
    versions,
    settings,
    servers,
    clients,
    ...(multi.length ? { multi } : {}),
    tally: tally(all),
    failOn,
    failScope: 'the reference rows (ContinuityEventStore, continuityGuard)',
    failures: all.filter((c) => isReferenceRow(c.implementation) && failOn.includes(c.verdict)),
  };
}

/** The markers of the generated block in docs/conformance-cells.md. */
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
