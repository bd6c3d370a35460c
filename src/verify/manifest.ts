/**
 * The state-space manifest (docs/verify-manifest.json): for each scope, the distinct states
 * and depth of every policy with the model's client and of every client mutant against the
 * honest server. The search is deterministic, so any change to the world, the machine or the
 * abstraction that changes the state space shows up as a diff of this file; a test holds the
 * small scope to it.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { CLIENT_MUTANTS } from '../../model/mutants/client-mutants.js';
import type { Scope } from '../../model/verify/scope.js';
import {
  A2A_POLICIES,
  POLICIES,
  TASK_POLICIES,
  type PolicyName,
} from '../../model/world/config.js';
import { progressLine } from './report.js';
import { verifyOne, type VerifyRun } from './run.js';
import { A2A_CLIENT_NAMES, TASK_CLIENT_NAMES } from './spec.js';

/** One row: a search and its counts. */
export type ManifestRow = Pick<
  VerifyRun,
  'policy' | 'client' | 'configs' | 'distinct' | 'generated' | 'depth'
>;

/** The manifest row of a verification: its search and counts, without timings or verdicts. */
export function manifestRowOf(r: VerifyRun): ManifestRow {
  const { policy, client, configs, distinct, generated, depth } = r;
  return { policy, client, configs, distinct, generated, depth };
}

/** The manifest file. */
export interface Manifest {
  generatedBy: string;
  /** The SSE world's rows (the `mcp-sse` binding), by scope. */
  scopes: Record<string, ManifestRow[]>;
  /** The rows of the other bindings' worlds, by binding name, then by scope. */
  bindings?: Record<string, Record<string, ManifestRow[]>>;
}

/**
 * The searches a scope's manifest records: every policy of the binding's world with the
 * model's client, and every mutant of that world against its honest server.
 */
export function manifestSearches(binding = 'mcp-sse'): { policy: PolicyName; client: string }[] {
  if (binding === 'mcp-tasks')
    return [
      ...TASK_POLICIES.map((policy) => ({ policy, client: 'model' })),
      ...TASK_CLIENT_NAMES.filter((c) => c !== 'model').map((client) => ({
        policy: 'tasks-honest' as PolicyName,
        client,
      })),
    ];
  if (binding === 'a2a')
    return [
      ...A2A_POLICIES.map((policy) => ({ policy, client: 'model' })),
      ...A2A_CLIENT_NAMES.filter((c) => c !== 'model').map((client) => ({
        policy: 'a2a-sdk' as PolicyName,
        client,
      })),
    ];
  return [
    ...POLICIES.map((policy) => ({ policy, client: 'model' })),
    ...CLIENT_MUTANTS.map((m) => ({ policy: 'honest' as PolicyName, client: m.name })),
  ];
}

/** Runs the manifest's searches of `scope`. */
export function manifestRows(
  scope: Scope,
  progress?: (line: string) => void,
  workers = 1,
  binding = 'mcp-sse',
): ManifestRow[] {
  return manifestSearches(binding).map(({ policy, client }) => {
    const label = `${scope.name}/${policy}/${client}`;
    const r = verifyOne(scope, policy, client, {
      workers,
      ...(progress ? { onProgress: (p) => progress(progressLine(label, p)) } : {}),
    });
    const broken = r.claims.filter((c) => !c.proven).map((c) => c.name);
    progress?.(
      `${label}: ${r.distinct} distinct states, depth ${r.depth}; ${broken.length ? `broken: ${broken.join(', ')}` : 'every claim proven'}`,
    );
    return manifestRowOf(r);
  });
}

/** Reads a manifest (an empty one when the file does not exist). */
export async function readManifest(file: string): Promise<Manifest> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as Manifest;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { generatedBy: '', scopes: {} };
    throw e;
  }
}

/** Runs `scope`'s searches and writes its rows into `file`, keeping the other scopes'. */
export async function writeManifest(
  file: string,
  scope: Scope,
  progress?: (line: string) => void,
  workers = 1,
  binding = 'mcp-sse',
): Promise<void> {
  const m = await readManifest(file);
  m.generatedBy =
    'mcp-resumption verify --scope <scope> [--binding mcp-tasks|a2a] --manifest docs/verify-manifest.json';
  if (binding !== 'mcp-sse') {
    const rows = manifestRows(scope, progress, workers, binding);
    m.bindings = { ...m.bindings, [binding]: { ...m.bindings?.[binding], [scope.name]: rows } };
    await writeFile(file, JSON.stringify(m, null, 2) + '\n');
    return;
  }
  m.scopes[scope.name] = manifestRows(scope, progress, workers);
  const ordered: Record<string, ManifestRow[]> = {};
  for (const k of ['small', 'medium', 'large']) if (m.scopes[k]) ordered[k] = m.scopes[k]!;
  m.scopes = ordered;
  await writeFile(file, JSON.stringify(m, null, 2) + '\n');
}
