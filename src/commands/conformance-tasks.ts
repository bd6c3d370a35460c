/**
 * `mcp-resumption conformance --binding mcp-tasks`: the task-stream scenarios
 * (src/conformance/scenarios/tasks.ts) against a server at `--url`, or against the built-in
 * reference server (`--reference`, or one of its mutants with `--reference-mutant NAME`) on a
 * loopback port of its own. Exit 0 when every scenario passes, 1 when one fails or cannot run.
 */
import { msOption, UsageError, type CommandIO, type ParsedArgs } from './cli-kit.js';
import { requireListeningUrl, SSE_SERVER_OPTIONS } from './conformance-url.js';

/** The options only the SSE scenarios have: refused under `--binding mcp-tasks`. */
const SSE_ONLY = [...SSE_SERVER_OPTIONS, 'write'];

/** Runs the task scenarios as the parsed options say; resolves to the exit status. */
export async function runTaskConformance(values: ParsedArgs['values'], io: CommandIO) {
  for (const k of SSE_ONLY) {
    if (values[k] !== undefined) {
      throw new UsageError(`conformance: --${k} is not an option of --binding mcp-tasks`);
    }
  }
  const str = (k: string) => (typeof values[k] === 'string' ? (values[k] as string) : undefined);
  const { TASK_SCENARIO_NAMES, runTaskScenarios } =
    await import('../conformance/scenarios/tasks.js');
  const { TASK_SERVER_MUTANTS, taskReferenceHandler } =
    await import('../conformance/task-reference.js');
  const url = str('url');
  const mutant = str('reference-mutant');
  const reference = values.reference === true || mutant !== undefined;
  if ((url === undefined) === !reference) {
    throw new UsageError(
      'conformance: --binding mcp-tasks needs --url URL or --reference (see conformance --help)',
    );
  }
  const mutants = TASK_SERVER_MUTANTS.map((m) => m.name) as string[];
  if (mutant !== undefined && !mutants.includes(mutant)) {
    throw new UsageError(
      `conformance: unknown --reference-mutant ${JSON.stringify(mutant)} (one of ${mutants.join(', ')})`,
    );
  }
  const only = str('only')?.split(',').filter(Boolean);
  const unknown = only?.find((n) => !TASK_SCENARIO_NAMES.includes(n));
  if (unknown !== undefined) {
    throw new UsageError(
      `conformance: unknown task scenario ${JSON.stringify(unknown)} (one of ${TASK_SCENARIO_NAMES.join(', ')})`,
    );
  }
  const timeoutMs = msOption('timeout', str('timeout'), 2000);
  if (timeoutMs === 0) throw new UsageError('conformance: --timeout must be positive');

  let target = url;
  let host: { url: string; close(): Promise<void> } | undefined;
  if (url !== undefined) {
    await requireListeningUrl(url);
  } else {
    const { serveFetch } = await import('../conformance/fetch-host.js');
    host = await serveFetch(
      taskReferenceHandler(mutant as Parameters<typeof taskReferenceHandler>[0]),
    );
    target = host.url;
  }
  const row = url ?? `reference${mutant ? ` (mutant ${mutant})` : ''}`;
  if (!values.json) io.err(`conformance --binding mcp-tasks: ${row}\n`);
  let results;
  try {
    results = await runTaskScenarios(target!, {
      timeoutMs,
      ...(only ? { only } : {}),
      ...(values.json
        ? {}
        : { onResult: (r) => io.err(`  ${r.scenario}: ${r.verdict} (${r.ms} ms)\n`) }),
    });
  } finally {
    await host?.close();
  }
  const failed = results.filter((r) => r.verdict !== 'pass');
  if (values.json) {
    io.out(JSON.stringify({ binding: 'mcp-tasks', row, results }) + '\n');
  } else {
    for (const r of results) io.out(`${r.verdict.padEnd(5)} ${r.scenario}: ${r.detail}\n`);
    io.out(
      `${results.length - failed.length} of ${results.length} task scenarios pass${failed.length > 0 ? `; failing: ${failed.map((r) => r.scenario).join(', ')}` : ''}\n`,
    );
  }
  return failed.length > 0 ? 1 : 0;
}
