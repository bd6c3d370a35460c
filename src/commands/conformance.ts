/**
 * `mcp-resumption conformance`: runs the resumption scenarios against MCP implementations over
 * loopback HTTP and prints the matrix. Three sources of rows: the built-in matrix (real SDK
 * servers and clients, in process; it needs the packages under test, the devDependencies), the
 * adapters a module exports (`--adapter`), and a server in any language at a URL (`--url`).
 * The harness is loaded only when the command runs.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BINDING_NAMES, bindingNamed } from '../../model/bindings/index.js';
import {
  intOption,
  MAX_TIMER_MS,
  msOption,
  parseCommandArgs,
  UsageError,
  type Command,
} from './cli-kit.js';

/** `--keepalive-ms` at most: reader-stall waits up to 16 intervals in one timer. */
const MAX_KEEPALIVE_MS = Math.floor(MAX_TIMER_MS / 16);
import type { ConformanceReport } from '../conformance/rendering/render.js';
import type { ImplementationEntry } from '../conformance/rows/matrix.js';
import { CELL_VERDICTS, type CellVerdict } from '../conformance/types.js';
import { HOSTILE_ID_PATTERN } from '../conformance/hostile-wire.js';
import { CONTINUITY_ID_PATTERN } from '../runtime/continuity-store.js';
import { requireListeningUrl, URL_ONLY_OPTIONS } from './conformance-url.js';

const VERDICTS = CELL_VERDICTS;

const VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'];

/** Parses `--fail-on` ("silent loss,leak,hang"; "none" for an empty set). */
export function parseFailOn(value: string): CellVerdict[] {
  if (value.trim() === 'none') return [];
  const names = value
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
  for (const n of names) {
    if (!(VERDICTS as readonly string[]).includes(n)) {
      throw new UsageError(
        `conformance: --fail-on: unknown verdict ${JSON.stringify(n)} (one of ${VERDICTS.join(', ')}, or none)`,
      );
    }
  }
  return names as CellVerdict[];
}

/** A file name for a cell's trace: `<row>.<scenario>.jsonl`, safe on every file system. */
export function traceFileName(implementation: string, scenario: string): string {
  const safe = (s: string) => s.replace(/[^A-Za-z0-9._+-]+/g, '_').replace(/^_+|_+$/g, '');
  return `${safe(implementation)}.${safe(scenario)}.jsonl`;
}

/** The `conformance` subcommand. */
export const conformanceCommand: Command = {
  name: 'conformance',
  summary: 'run the resumption scenarios against MCP servers (built-in, your adapter, or a URL)',
  worldConfigs: false,
  help: `Usage: mcp-resumption conformance [ROWS] [OPTIONS]

Drives MCP Streamable HTTP implementations over loopback HTTP, injects faults (cut connections,
restarts, evictions, stalls), reconnects with Last-Event-ID, and prints the matrix
implementation × scenario. Each cell (one scenario run against one implementation): what was
observed (the status, and what arrived against what the tool really sent) and a verdict:
  honored      replayed from cursor+1, nothing lost, nothing foreign
  rejected     a distinguishable non-200 answer (or, for a client, an error it was told about)
  silent loss  200, and messages never delivered (or out of order, or twice)
  leak         messages of another stream or session (another session: a security finding)
  hang         no answer within the bound
  error        the harness could not run the scenario (the status and a body excerpt)
  n/a          not run, with the reason (a capability the adapter lacks, a hook not given)
A row whose events carry no ids is "not resumable": its reconnects are GETs without
Last-Event-ID, never a cursor; the cells that lose only for that are n/a with that reason, stated
once for the row (a cell that loses for another reason keeps its verdict). A server without
sessions (no Mcp-Session-Id) is run too: its refused resumes say "stateless: no session to
resume", and what needs no reconnect is judged as usual. A control call of --url (count_release,
count_status) that fails or is answered on the wrong request is "error: control channel". The
harness never follows a redirect (the cell is an error naming its Location), and reads at most
16 MiB of any body.
Beside each cell, the oracle: what the trace check (mcp-resumption check) concludes from the
recorded trace, seeing only what a client sees; where the two disagree (marked †), the cell says
which one is wrong. Each row shows the protocol version its server
answered in initialize; the harness asks for --protocol-version and speaks what it is answered.

Rows (one of):
  (none)           the built-in matrix: the SDK 1.x and 2.x servers with three event stores,
                   one pinned to protocol 2025-03-26, mcp-proxy, and the SDK client transports
                   bare and with continuityGuard, and the 2.x server twice behind a round-robin
                   front (per-instance store; RedisContinuityEventStore: needs REDIS_URL or a
                   redis-server on PATH, else n/a) (needs the devDependencies: run it in a clone)
  --adapter FILE   the adapters FILE exports: objects { name, make } where make() returns an
                   ImplementationAdapter (mcp-resumption/conformance); repeatable
  --url URL        black box: the server already running at URL (http://127.0.0.1:PORT/path,
                   loopback only), any language; it must serve the test tool contract of
                   docs/conformance.md (count, count_release, count_status)

Black-box options (with --url):
  --name NAME          the row's name (default: url URL)
  --restart-cmd CMD    shell command that restarts the server at the same URL, losing its
                       state; without it after-restart is n/a
  --evict-cmd CMD      shell command that makes the server forget its oldest events; without
                       it after-eviction is n/a
  --hook-timeout MS    bound on each hook and on the server answering after it (default 10000)
  --keepalive-ms MS    the server's SSE keepalive interval; without it reader-stall is n/a;
                       auto: measured on a quiet call stream (two keepalives within 20 s, else
                       reader-stall is n/a saying so)
  --id-pattern REGEX   how the server's ids carry the sequence: named group (?<seq>\\d+), and
                       optionally (?<stream>…) (default: opaque ids)
  --id-sequence KIND   per-stream (default) or global: how --id-pattern's seq counts

Run options:
  --only NAMES         comma-separated scenario names and/or row names: built-in rows (by
                       prefix), or with --adapter the module's rows (exact names)
  --protocol-version V the version asked for in initialize: 2025-11-25 (default), 2025-06-18,
                       2025-03-26
  --retention N        events the server retains, where the adapter can set it (default 16);
                       after-eviction emits N+8 messages
  --timeout MS         bound on each request (default 2000)
  --idle MS            silence on a stream meaning nothing more is coming (default 400)
  --fail-on VERDICTS   comma-separated verdicts that make the exit status 1, or none
                       (default: silent loss,leak,hang); on the built-in matrix they apply to
                       the reference rows (ContinuityEventStore, continuityGuard), whose cells
                       are the project's promise; the other rows are the findings it documents
  --json               one JSON object: date, versions, settings, every cell (with its trace)
                       under servers/clients/multi, and a flat list "cells" (row, scenario,
                       verdict, observed, reason, security, oracle agreement) to filter in CI
  --junit FILE         also write JUnit XML: one testsuite per row, one testcase per cell
  --traces DIR         also write each cell's recorded trace to DIR/<row>.<scenario>.jsonl;
                       run mcp-resumption check on any of them
  --write FILE         replace the generated block of FILE with the report (Markdown): the
                       block "conformance" for the built-in matrix, "conformance-custom" for
                       --adapter/--url rows

Clients (any language), against the kit's hostile servers (mcp-resumption serve --list):
  --client-cmd CMD     run the shell command CMD once per client scenario, with MCP_URL set to
                       that scenario's server. The contract: CMD calls the tool count once,
                       prints every message it delivered to its application as one JSON line
                       on stdout (the kit finds the texts c<k>#<i> and c<k>:result:<n> anywhere
                       in a line), prints the error it surfaced (if any) as {"error": ...}, and
                       exits. Verdicts: honored, rejected (an error where one is due), and the
                       failures dropped call, silent gap, endless wait (killed at
                       --client-timeout), false alarm, retry storm, leak, error; each failing
                       one with a line saying what to change. A client that shows no progress
                       is judged by what the server served it. The run ends at the bound or
                       once CMD exited; whatever it left running is killed (its process group,
                       and any process carrying its MCP_RESUMPTION_RUN mark); more than 1 MiB on stdout
                       is an error. Exit 1 on a failing verdict.
  --client-name NAME   the row's name (default: the command)
  --client-timeout MS  bound on each run of CMD (default 10000)

Durations (MS) are at most 2147483647 (2^31-1: Node fires a longer timer at once), and
--keepalive-ms at most 134217727 (reader-stall waits up to 16 intervals); more is bad input.
  --sdk-clients        also run the SDK clients (v1, v2, bare and with continuityGuard) through
                       the same path (needs the devDependencies: run it in a clone)
  --only NAMES         with --client-cmd: client scenario names

Ids: ContinuityEventStore's are <epoch>-s<k>-<seq>: --id-pattern '${CONTINUITY_ID_PATTERN.source}'
(CONTINUITY_ID_PATTERN in mcp-resumption/runtime); the hostile servers' (serve, --client-cmd) are
c<k>-<seq>: '${HOSTILE_ID_PATTERN.source}'.

Task event streams (SEP-2694, --binding mcp-tasks):
  --binding NAME       mcp-sse (default: the SSE scenarios above), mcp-tasks: the task-stream
                       scenarios, against --url URL or the built-in reference server, or a2a
                       (below)
  --reference          (with --binding mcp-tasks) run against the reference TaskEventLog server
  --reference-mutant M (with --binding mcp-tasks) against a wrong reference server instead:
                       silent-skip, renumbering, bare-410, replay-from-head, skip-one
  With --binding mcp-tasks the server at --url serves plain JSON-RPC POSTs: tasks/stream, and
  the control methods conformance/task_create, task_emit, task_complete, task_evict
  (docs/conformance.md, "Task event streams"); --only, --timeout and --json apply. Scenarios:
  fresh-stream, resume-after, guarded-resume, resume-live, events-gone, earliest-retained,
  invalid-after, other-task. Exit 1 when one fails.

A2A task subscriptions (--binding a2a): the A2A scenarios against @a2a-js/sdk 1.3.0 servers in
  process (its in-memory task store, and the same store behind write and read latency). Needs
  @a2a-js/sdk 1.3.0 and express 5 beside this package (npm install @a2a-js/sdk@1.3.0 express@5),
  or a clone, whose devDependencies hold them. Each cell: the a2a checker's verdict on the
  resubscribe (era 1.0), and what the agent emitted against what the client received (clean,
  loss, duplicate, refused). --only, --timeout, --json and --write FILE (the block
  conformance-a2a) apply. Scenarios: away, seam-loss, snapshot-equal, seam-duplicate,
  finished-while-away. Exit 1 when a cell could not run.

Scenarios: within-window, after-eviction, after-restart, other-stream, other-session,
same-ms-burst, empty-resume-twice, reader-stall, stale-connection, slow-store-replay,
two-sessions, finished-while-away.

Exit status: 0; 1 when a cell within --fail-on's scope has one of its verdicts; 2 on bad input.

Examples:
  mcp-resumption conformance --adapter ./my-adapter.mjs --junit conformance.xml
  mcp-resumption conformance --binding mcp-tasks --url http://127.0.0.1:8080/mcp
  mcp-resumption conformance --url http://127.0.0.1:8080/mcp \\
      --restart-cmd 'systemctl --user restart my-mcp' --keepalive-ms auto --traces traces/`,
  async run(argv, io) {
    const { values } = parseCommandArgs('conformance', argv, {
      json: { type: 'boolean' },
      only: { type: 'string' },
      write: { type: 'string' },
      adapter: { type: 'string', multiple: true },
      url: { type: 'string' },
      name: { type: 'string' },
      'restart-cmd': { type: 'string' },
      'evict-cmd': { type: 'string' },
      'hook-timeout': { type: 'string' },
      'keepalive-ms': { type: 'string' },
      'id-pattern': { type: 'string' },
      'id-sequence': { type: 'string' },
      'protocol-version': { type: 'string' },
      retention: { type: 'string' },
      timeout: { type: 'string' },
      idle: { type: 'string' },
      'fail-on': { type: 'string' },
      junit: { type: 'string' },
      traces: { type: 'string' },
      binding: { type: 'string' },
      'client-cmd': { type: 'string' },
      'client-name': { type: 'string' },
      'client-timeout': { type: 'string' },
      'sdk-clients': { type: 'boolean' },
      reference: { type: 'boolean' },
      'reference-mutant': { type: 'string' },
    });
    if (values.binding === 'a2a') {
      const { runA2aConformance } = await import('./conformance-a2a.js');
      return runA2aConformance(values, io);
    }
    const binding = values.binding;
    if (typeof binding === 'string' && bindingNamed(binding) === undefined) {
      throw new UsageError(
        `conformance: unknown --binding ${JSON.stringify(binding)} (expected one of ${BINDING_NAMES.join(', ')})`,
      );
    }
    if (binding === 'mcp-tasks') {
      const { runTaskConformance } = await import('./conformance-tasks.js');
      return runTaskConformance(values, io);
    }
    if (values['client-cmd'] !== undefined || values['sdk-clients'] !== undefined) {
      return runClientConformance(values, io);
    }
    if (values.reference !== undefined || values['reference-mutant'] !== undefined) {
      throw new UsageError('conformance: --reference needs --binding mcp-tasks');
    }
    const str = (k: string) => (typeof values[k] === 'string' ? (values[k] as string) : undefined);
    const adapters = (values.adapter as unknown as string[] | undefined) ?? [];
    const url = str('url');
    if (url !== undefined && adapters.length > 0) {
      throw new UsageError('conformance: give --url or --adapter, not both');
    }
    const custom = url !== undefined || adapters.length > 0;
    for (const k of URL_ONLY_OPTIONS) {
      if (values[k] !== undefined && url === undefined) {
        throw new UsageError(`conformance: --${k} needs --url (see conformance --help)`);
      }
    }
    const only =
      typeof values.only === 'string' ? values.only.split(',').filter(Boolean) : undefined;
    const protocolVersion = str('protocol-version');
    if (protocolVersion !== undefined && !VERSIONS.includes(protocolVersion)) {
      throw new UsageError(
        `conformance: --protocol-version must be one of ${VERSIONS.join(', ')}, got ${JSON.stringify(protocolVersion)}`,
      );
    }
    const failOn = str('fail-on') !== undefined ? parseFailOn(str('fail-on')!) : undefined;
    const settings = {
      retention: intOption('retention', str('retention'), 16),
      timeoutMs: msOption('timeout', str('timeout'), 2000),
      idleMs: msOption('idle', str('idle'), 400),
    };
    if (settings.timeoutMs === 0 || settings.idleMs === 0) {
      throw new UsageError('conformance: --timeout and --idle must be positive');
    }
    const file = str('write');
    let doc: string | undefined;
    if (file !== undefined) {
      try {
        doc = await readFile(file, 'utf8');
      } catch {
        throw new UsageError(`conformance: cannot read ${file}`);
      }
    }
    const block = custom ? 'conformance-custom' : 'conformance';
    if (doc !== undefined && !doc.includes(`<!-- ${block}:begin`)) {
      throw new UsageError(`conformance: ${file} has no <!-- ${block}:begin … --> marker`);
    }
    const onCell = values.json
      ? undefined
      : (c: { implementation: string; scenario: string; verdict: string; ms: number }) =>
          io.err(`  ${c.implementation} × ${c.scenario}: ${c.verdict} (${c.ms} ms)\n`);

    let report: ConformanceReport;
    if (custom) {
      const kit = await import('../conformance/rows/custom.js');
      const { scenarioNames } = kit;
      let entries;
      let keepAliveMs: number | undefined;
      if (url !== undefined) {
        const made = await urlEntry(url, str, settings.timeoutMs, protocolVersion, io);
        entries = [made.entry];
        keepAliveMs = made.keepAliveMs;
      } else {
        entries = [];
        for (const f of adapters) {
          try {
            entries.push(...(await kit.loadAdapterModule(f)));
          } catch (e) {
            if (e instanceof kit.AdapterModuleError)
              throw new UsageError(`conformance: ${e.message}`);
            throw e;
          }
        }
      }
      // --only names scenarios and, with --adapter, rows of the module.
      const rowNames = entries.map((e) => e.name);
      const unknown = (only ?? []).filter(
        (n) => !scenarioNames().includes(n) && !rowNames.includes(n),
      );
      if (unknown.length > 0) {
        throw new UsageError(
          `conformance: unknown scenario or row ${JSON.stringify(unknown[0])} (with --adapter/--url, --only names scenarios: ${scenarioNames().join(', ')}; and rows: ${rowNames.join(', ')})`,
        );
      }
      const onlyRows = (only ?? []).filter((n) => rowNames.includes(n));
      if (onlyRows.length > 0) entries = entries.filter((e) => onlyRows.includes(e.name));
      const onlyScenarios = (only ?? []).filter((n) => scenarioNames().includes(n));
      io.err(
        `conformance: ${entries.length} row(s) × ${onlyScenarios.length || scenarioNames().length} scenario(s): ${entries.map((e) => e.name).join(', ')}\n`,
      );
      const givenKeepAlive = str('keepalive-ms');
      if (url === undefined && givenKeepAlive === 'auto') {
        throw new UsageError('conformance: --keepalive-ms auto needs --url (an adapter sets it)');
      }
      if (url === undefined && givenKeepAlive !== undefined) {
        keepAliveMs = msOption('keepalive-ms', givenKeepAlive, 0, MAX_KEEPALIVE_MS);
      }
      report = await kit.runCustomConformance(entries, {
        ...settings,
        ...(keepAliveMs !== undefined ? { keepAliveMs } : {}),
        ...(protocolVersion !== undefined ? { protocolVersion } : {}),
        ...(onlyScenarios.length > 0 ? { only: onlyScenarios } : {}),
        ...(failOn ? { failOn } : {}),
        ...(onCell ? { onCell } : {}),
      });
    } else {
      const harness = await import('../conformance/rows/report.js').catch((e: unknown) => {
        throw new UsageError(
          `conformance: the built-in matrix needs the packages under test, which are not installed (${(e as Error).message.split('\n')[0]}); test your own server with --adapter or --url`,
        );
      });
      const unknown = only ? harness.unknownNames(only) : [];
      if (unknown.length > 0) {
        throw new UsageError(
          `conformance: unknown scenario or implementation ${JSON.stringify(unknown[0])} (see conformance --help)`,
        );
      }
      report = await harness.runConformance({
        ...settings,
        ...(protocolVersion !== undefined ? { protocolVersion } : {}),
        ...(only ? { only } : {}),
        ...(failOn ? { failOn } : {}),
        ...(onCell ? { onCell } : {}),
      });
    }

    const render = await import('../conformance/rendering/render.js');
    const junit = str('junit');
    if (junit !== undefined) {
      await writeFile(junit, render.renderJunit(report));
      io.err(`conformance: JUnit XML written to ${junit}\n`);
    }
    const traces = str('traces');
    if (traces !== undefined) {
      await mkdir(traces, { recursive: true });
      let n = 0;
      for (const c of [...report.servers, ...report.clients]) {
        if (c.trace.length === 0) continue;
        await writeFile(
          join(traces, traceFileName(c.implementation, c.scenario)),
          c.trace.join('\n') + '\n',
        );
        n++;
      }
      io.err(
        `conformance: ${n} trace(s) written to ${traces} (check one: mcp-resumption check FILE)\n`,
      );
    }
    if (file !== undefined && doc !== undefined) {
      const replaced = render.replaceGeneratedBlock(doc, block, render.renderMarkdown(report));
      if (replaced === null)
        throw new UsageError(`conformance: ${file}: the ${block} block has no end marker`);
      let text = replaced;
      // Format as the repository's Prettier would, when it is installed, so the page stays
      // lint-clean after regeneration.
      const prettier = await import('prettier').catch(() => null);
      if (prettier) {
        const config = (await prettier.resolveConfig(file)) ?? {};
        text = await prettier.format(text, { ...config, filepath: file });
      }
      await writeFile(file, text);
      io.out(`conformance report written to ${file}\n`);
    } else if (values.json) {
      io.out(JSON.stringify({ ...report, cells: render.flatCells(report) }) + '\n');
    } else {
      io.out(render.renderText(report) + '\n');
    }
    return report.failures.length > 0 ? 1 : 0;
  },
};

/** The black-box row for `--url`, from the command's options. */
async function urlEntry(
  url: string,
  str: (k: string) => string | undefined,
  timeoutMs: number,
  version: string | undefined,
  io: { err: (t: string) => void },
): Promise<{ entry: ImplementationEntry; keepAliveMs?: number }> {
  const { urlAdapter, measureKeepalive, KEEPALIVE_PROBE_MS } =
    await import('../conformance/adapters/url.js');
  const { PROTOCOL_VERSION } = await import('../conformance/recording/recorder.js');
  const { patternCodec } = await import('../conformance/types.js');
  const sequence = str('id-sequence') ?? 'per-stream';
  if (sequence !== 'per-stream' && sequence !== 'global') {
    throw new UsageError(
      `conformance: --id-sequence must be per-stream or global, got ${JSON.stringify(sequence)}`,
    );
  }
  let idCodec;
  const pattern = str('id-pattern');
  if (pattern !== undefined) {
    let re: RegExp;
    try {
      re = new RegExp(pattern);
    } catch (e) {
      throw new UsageError(
        `conformance: --id-pattern is not a regular expression (${(e as Error).message})`,
      );
    }
    if (!/\(\?<seq>/.test(pattern)) {
      throw new UsageError('conformance: --id-pattern needs a named group (?<seq>\\d+)');
    }
    idCodec = patternCodec(re, sequence);
  }
  const keepAlive = str('keepalive-ms');
  const hookTimeout = str('hook-timeout');
  const name = str('name') ?? `url ${url}`;
  let keepAliveMs =
    keepAlive === undefined || keepAlive === 'auto'
      ? undefined
      : msOption('keepalive-ms', keepAlive, 0, MAX_KEEPALIVE_MS);
  const hookTimeoutMs = msOption('hook-timeout', hookTimeout, 10_000);
  // Bad options first (one line, exit 2), then whether the server is there.
  await requireListeningUrl(url);
  let keepaliveMissing: string | undefined;
  if (keepAlive === 'auto') {
    // Sized from the server's real keepalive (issue 38: a copied --keepalive-ms 1000 judged
    // servers without keepalives), or reader-stall is n/a saying why.
    const measured = await measureKeepalive(url, {
      timeoutMs,
      protocolVersion: version ?? PROTOCOL_VERSION,
    }).catch(() => null);
    if (measured === null) {
      keepaliveMissing =
        `--keepalive-ms auto: no two keepalives on a quiet call stream within ${KEEPALIVE_PROBE_MS} ms ` +
        '(the server sends none, or less often): the stall cannot be sized against them';
    } else {
      keepAliveMs = Math.min(measured, MAX_KEEPALIVE_MS);
    }
    io.err(
      `conformance: keepalive measured: ${measured === null ? `none within ${KEEPALIVE_PROBE_MS} ms` : `${measured} ms`}\n`,
    );
  }
  const options = {
    url,
    name,
    ...(str('restart-cmd') !== undefined ? { restartCmd: str('restart-cmd')! } : {}),
    ...(str('evict-cmd') !== undefined ? { evictCmd: str('evict-cmd')! } : {}),
    hookTimeoutMs,
    ...(keepAliveMs !== undefined ? { keepAliveMs } : {}),
    ...(keepaliveMissing !== undefined ? { keepaliveMissing } : {}),
    ...(idCodec ? { idCodec } : {}),
  };
  return {
    entry: { name, make: () => urlAdapter(options) },
    ...(keepAliveMs !== undefined ? { keepAliveMs } : {}),
  };
}

/** `conformance --client-cmd CMD` (and `--sdk-clients`): clients judged against hostile servers. */
async function runClientConformance(
  values: Record<string, string | boolean | undefined>,
  io: { out: (t: string) => void; err: (t: string) => void },
): Promise<number> {
  const { HOSTILE_SCENARIOS } = await import('../conformance/hostile-server.js');
  const kit = await import('../conformance/rows/client-command.js');
  for (const k of ['url', 'adapter', ...URL_ONLY_OPTIONS, 'write', 'junit', 'traces']) {
    if (values[k] !== undefined) {
      throw new UsageError(`conformance: --${k} does not apply to --client-cmd (servers only)`);
    }
  }
  const names = HOSTILE_SCENARIOS.map((s) => s.name);
  const only = typeof values.only === 'string' ? values.only.split(',').filter(Boolean) : undefined;
  const unknown = (only ?? []).find((n) => !names.includes(n));
  if (unknown !== undefined) {
    throw new UsageError(
      `conformance: unknown client scenario ${JSON.stringify(unknown)} (with --client-cmd, --only names: ${names.join(', ')})`,
    );
  }
  const timeoutMs = msOption(
    'client-timeout',
    values['client-timeout'] as string | undefined,
    10_000,
  );
  if (timeoutMs === 0) throw new UsageError('conformance: --client-timeout must be positive');
  const rows: { name: string; cmd: string }[] = [];
  const cmd = values['client-cmd'];
  if (typeof cmd === 'string') {
    if (cmd.trim() === '') throw new UsageError('conformance: --client-cmd is empty');
    const name = values['client-name'];
    rows.push({ name: typeof name === 'string' ? name : cmd, cmd });
  }
  const own = rows.length;
  if (values['sdk-clients']) {
    const sdk = await import('../conformance/rows/sdk-contract-client.js');
    rows.push(...sdk.sdkClientRows());
  }
  io.err(
    `conformance: ${rows.length} client row(s) × ${only?.length ?? names.length} scenario(s): ${rows.map((r) => r.name).join(', ')}\n`,
  );
  const onCell = values.json
    ? undefined
    : (c: { row: string; scenario: string; verdict: string; ms: number }) =>
        io.err(`  ${c.row} × ${c.scenario}: ${c.verdict} (${c.ms} ms)\n`);
  const cells = await kit.runClientCommands(rows, { timeoutMs, ...(only ? { only } : {}) }, onCell);
  const ownCells = cells.filter((c) => rows.slice(0, own).some((r) => r.name === c.row));
  const failures = ownCells.filter((c) => kit.FAILING_CLIENT_VERDICTS.includes(c.verdict));
  if (values.json) {
    io.out(
      JSON.stringify({
        date: new Date().toISOString(),
        settings: { clientTimeoutMs: timeoutMs, ...(only ? { only } : {}) },
        cells,
      }) + '\n',
    );
  } else {
    io.out(kit.renderClientCells(cells) + '\n');
  }
  return failures.length > 0 ? 1 : 0;
}
