/**
 * The conformance run for implementations the user brings: adapters from a module
 * (`--adapter FILE`) or a server at a URL (`--url`). It loads none of the implementations the
 * built-in matrix tests, so it works from an installed package with only its production
 * dependencies.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  runMatrix,
  tally,
  type ImplementationEntry,
  type JudgedCell,
  type MatrixOptions,
} from './matrix.js';
import { DEFAULT_FAIL_ON, type ConformanceReport } from '../rendering/render.js';
import { SCENARIOS } from '../scenarios/index.js';
import type { CellVerdict } from '../types.js';
import { packageVersion } from '../versions.js';

/** A module that was asked for adapters and had none, or could not be loaded. */
export class AdapterModuleError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AdapterModuleError';
  }
}

function isEntry(x: unknown): x is ImplementationEntry {
  return (
    typeof x === 'object' &&
    x !== null &&
    typeof (x as { name?: unknown }).name === 'string' &&
    typeof (x as { make?: unknown }).make === 'function'
  );
}

/**
 * The adapter entries a module exports: every export (default included) that is an
 * {@link ImplementationEntry} (`{ name, make }`, `make` returning a fresh adapter per cell) or an
 * array of them, in export order, without duplicates.
 */
export async function loadAdapterModule(file: string): Promise<ImplementationEntry[]> {
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(resolve(file)).href)) as Record<string, unknown>;
  } catch (e) {
    const first = (e instanceof Error ? e.message : String(e)).split('\n')[0];
    throw new AdapterModuleError(`--adapter ${file}: cannot load it (${first})`);
  }
  const entries: ImplementationEntry[] = [];
  for (const value of Object.values(mod)) {
    for (const x of Array.isArray(value) ? (value as unknown[]) : [value]) {
      if (isEntry(x) && !entries.includes(x)) entries.push(x);
    }
  }
  if (entries.length === 0) {
    throw new AdapterModuleError(
      `--adapter ${file}: it exports no adapter entry; export { name, make } objects, where ` +
        'make() returns an ImplementationAdapter (docs/conformance.md, "In JavaScript: --adapter and runCell")',
    );
  }
  const names = entries.map((e) => e.name);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice !== undefined) {
    throw new AdapterModuleError(
      `--adapter ${file}: two entries are named ${JSON.stringify(twice)}`,
    );
  }
  return entries;
}

/** The names of the scenarios, in matrix order. */
export function scenarioNames(): string[] {
  return SCENARIOS.map((s) => s.name);
}

/** Options of {@link runCustomConformance}. */
export interface CustomConformanceOptions extends MatrixOptions {
  /** Scenario names to run (all when absent). */
  only?: string[];
  /** Called after each cell (progress). */
  onCell?: (cell: JudgedCell) => void;
  /** Verdicts that fail the run (default silent loss, leak, hang). */
  failOn?: readonly CellVerdict[];
}

/** Runs every scenario (or those in `only`) against the user's implementations. */
export async function runCustomConformance(
  entries: readonly ImplementationEntry[],
  options: CustomConformanceOptions = {},
): Promise<ConformanceReport> {
  // The keepalive the report states is one that was given, never the harness's default.
  const settings = {
    ...(options.keepAliveMs !== undefined ? { keepAliveMs: options.keepAliveMs } : {}),
    retention: options.retention ?? 16,
    timeoutMs: options.timeoutMs ?? 2000,
    idleMs: options.idleMs ?? 400,
  };
  const { onCell, failOn: failOnOption, ...matrix } = options;
  const cells = await runMatrix(entries, { ...matrix, ...settings, scenarios: SCENARIOS }, onCell);
  const failOn = [...(failOnOption ?? DEFAULT_FAIL_ON)];
  const versions: Record<string, string> = {};
  for (const entry of entries) {
    try {
      Object.assign(versions, entry.make().versions);
    } catch {
      // a factory that fails here failed in its cells too; they say why
    }
  }
  versions['mcp-resumption'] = packageVersion('mcp-resumption');
  versions.node = process.version;
  return {
    date: new Date().toISOString(),
    versions,
    settings,
    servers: cells,
    clients: [],
    tally: tally(cells),
    failOn,
    failScope: 'every row',
    failures: cells.filter((c) => failOn.includes(c.verdict)),
  };
}
