/**
 * Any client, in any language: `conformance --client-cmd 'CMD'` runs CMD once per hostile
 * scenario (hostile-server.ts), with `MCP_URL` set to that scenario's server, and judges the
 * client from what it delivered, what it surfaced, and what the server saw it do.
 *
 * The contract (docs/conformance.md, "Test your own client"): the client calls the tool `count`
 * once; it prints every message it delivered to its application as one JSON line on stdout (the
 * notification, its params, or the result: the kit looks for the texts `c<k>#<i>` and
 * `c<k>:result:<n>` anywhere in the line), prints the error it surfaced, if any, as one line
 * `{"error": …}`, and exits. The kit waits at most `timeoutMs`, then kills it.
 */
import { spawn } from 'node:child_process';
import { killAfter } from '../kill-after.js';
import {
  activityOf,
  describeActivity,
  HOSTILE_N,
  HOSTILE_SCENARIOS,
  startHostileServer,
  type ClientActivity,
  type HostileScenario,
} from '../hostile-server.js';

/** How a client did in one scenario. */
export type ClientVerdict =
  | 'honored'
  | 'rejected'
  | 'dropped call'
  | 'silent gap'
  | 'endless wait'
  | 'false alarm'
  | 'retry storm'
  | 'leak'
  | 'error';

/** The verdicts that fail a client run (every one but honored and rejected). */
export const FAILING_CLIENT_VERDICTS: readonly ClientVerdict[] = [
  'dropped call',
  'silent gap',
  'endless wait',
  'false alarm',
  'retry storm',
  'leak',
  'error',
];

/** What to change in the client, one line per failing verdict. */
export const CLIENT_FIX: Record<ClientVerdict, string | undefined> = {
  honored: undefined,
  rejected: undefined,
  'dropped call':
    "change the client: when a call's stream ends without its response, reconnect with " +
    'Last-Event-ID (after the retry: delay) or fail the call with an error',
  'silent gap':
    "change the client: after a reconnect, accept only an event whose id is the cursor's " +
    'successor (or one the server said it replays from), and fail the call otherwise (continuityGuard in ' +
    'mcp-resumption/runtime does it for an SDK client)',
  'endless wait':
    'change the client: bound every wait (a limit on how long a reconnect may stay unproven, ' +
    'a call timeout) ' +
    'and fail the call when it runs out',
  'false alarm':
    'change the client: silence with keepalives, or a resume proven by its first id, is not a ' +
    'failure; fail only when continuity cannot be proven',
  'retry storm':
    'change the client: cap the retry: delay (Node turns a delay above 2^31-1 ms into 1 ms) ' +
    'and bound the reconnects',
  leak: "change the client: refuse events whose id names another stream than the cursor's",
  error:
    'make the command follow the client contract (docs/conformance.md, "Test your own client")',
};

/** More GETs than this in one second is a retry storm. */
export const STORM_PER_SECOND = 10;

/** What the client printed, read. */
export interface ClientOutput {
  /** `<tag>#<i>` and `<tag>:result` in the order delivered. */
  delivered: string[];
  /** The error it surfaced (the first `{"error": …}` line), if any. */
  surfaced?: string;
  /** Lines that were not JSON. */
  unreadable: number;
}

const MESSAGE = /^([A-Za-z0-9_-]+)#(\d+)$/;
const RESULT = /^([A-Za-z0-9_-]+):result:(\d+)$/;

/** Every string inside `v` (depth-first, bounded). */
function strings(v: unknown, out: string[] = [], depth = 0): string[] {
  if (depth > 8) return out;
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v) strings(x, out, depth + 1);
  else if (v !== null && typeof v === 'object')
    for (const x of Object.values(v)) strings(x, out, depth + 1);
  return out;
}

/** Reads a client's stdout by the contract. */
export function readClientOutput(stdout: string): ClientOutput {
  const out: ClientOutput = { delivered: [], unreadable: 0 };
  for (const line of stdout.split('\n')) {
    if (line.trim() === '') continue;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      out.unreadable++;
      continue;
    }
    if (v !== null && typeof v === 'object' && !Array.isArray(v) && 'error' in v) {
      const e = (v as { error: unknown }).error;
      out.surfaced ??= (typeof e === 'string' ? e : JSON.stringify(e)).slice(0, 200);
      continue;
    }
    for (const s of strings(v)) {
      const m = MESSAGE.exec(s);
      if (m) out.delivered.push(`${m[1]}#${m[2]}`);
      const r = RESULT.exec(s);
      if (r) out.delivered.push(`${r[1]}:result`);
    }
  }
  return out;
}

/** One judged client cell. The field names are those of `--json` and the docs. */
export interface ClientCell {
  row: string;
  scenario: string;
  verdict: ClientVerdict;
  /** What happened, in words. */
  observed: string;
  /** What to change, for a failing verdict. */
  fix?: string;
  /** What the server saw the client do. */
  activity: ClientActivity;
  delivered: string[];
  surfaced?: string;
  /** The command's exit status (`null`: killed at the bound). */
  exit: number | null;
  ms: number;
}

/** Judges one run: the order below is the order of gravity. */
export function judgeClient(
  scenario: HostileScenario,
  output: ClientOutput,
  activity: ClientActivity,
  killed: boolean,
  exit: number | null,
): { verdict: ClientVerdict; observed: string } {
  const act = describeActivity(activity);
  const got = output.delivered;
  const shown = got.length <= 12 ? got.join(' ') : `${got.slice(0, 12).join(' ')} …`;
  const said = output.surfaced !== undefined ? `; surfaced: ${output.surfaced}` : '';
  const base = `delivered ${shown || 'nothing'}${said}; server saw: ${act}`;
  if (activity.maxGetsPerSecond > STORM_PER_SECOND) {
    return { verdict: 'retry storm', observed: base };
  }
  // The kit cannot judge a command that never called count. One that did, and then exited
  // with nothing (Node exits 13 when a call's promise can never settle), dropped the call.
  if (activity.calls === 0) {
    return {
      verdict: 'error',
      observed: `the command ${activity.requests === 0 ? 'never reached the server' : `never called count (exit ${exit})`}; ${base}`,
    };
  }
  const foreign = got.filter((d) => !/^c\d+[#:]/.test(d));
  if (foreign.length > 0)
    return { verdict: 'leak', observed: `foreign ${foreign.join(' ')}; ${base}` };
  // Per call: a message delivered after a missing one is a gap the application never saw.
  const calls = new Map<string, number[]>();
  const results = new Set<string>();
  for (const d of got) {
    const [tag, rest] = d.split(/[#:]/) as [string, string];
    if (d.includes(':result')) results.add(tag);
    else calls.set(tag, [...(calls.get(tag) ?? []), Number(rest)]);
  }
  for (const [tag, idx] of calls) {
    let next = 1;
    for (const i of idx) {
      if (i === next) next++;
      else if (i > next) {
        return {
          verdict: 'silent gap',
          observed: `${tag}#${i} delivered after ${tag}#${next - 1}, ${next}..${i - 1} never; ${base}`,
        };
      }
    }
    if (results.has(tag) && next !== HOSTILE_N + 1) {
      return {
        verdict: 'silent gap',
        observed: `${tag}'s result delivered without ${next}..${HOSTILE_N}; ${base}`,
      };
    }
  }
  if (killed) return { verdict: 'endless wait', observed: `still waiting at the bound; ${base}` };
  const lastCall = `c${Math.max(1, activity.calls)}`;
  if (results.has(lastCall)) {
    return { verdict: 'honored', observed: base };
  }
  if (output.surfaced !== undefined) {
    return scenario.expect === 'surface'
      ? { verdict: 'rejected', observed: base }
      : { verdict: 'false alarm', observed: base };
  }
  return {
    verdict: 'dropped call',
    observed: `exited without the result and without an error; ${base}`,
  };
}

/** Options of {@link runClientCommand}. */
export interface ClientCommandOptions {
  /** The row's name (default: the command). */
  name?: string;
  /** Bound on the command's run (ms); beyond it the client is killed. Default 10000. */
  timeoutMs?: number;
  /** Milliseconds between the server's messages. Default 20. */
  gapMs?: number;
}

/** Runs `cmd` (a shell command) against the hostile server of `scenario` and judges it. */
export async function runClientCommand(
  cmd: string,
  scenario: HostileScenario,
  options: ClientCommandOptions = {},
): Promise<ClientCell> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const started = Date.now();
  const server = await startHostileServer(scenario, { gapMs: options.gapMs ?? 20 });
  let stdout = '';
  let stderr = '';
  let killed = false;
  const exit = await new Promise<number | null>((resolve) => {
    const child = spawn(cmd, {
      shell: true,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, MCP_URL: server.url },
    });
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (c: string) => {
      if (stdout.length < 1 << 20) stdout += c;
    });
    child.stderr.on('data', (c: string) => (stderr = (stderr + c).slice(-2000)));
    const timer = killAfter(child, timeoutMs, () => (killed = true));
    child.on('error', (e) => {
      clearTimeout(timer);
      stderr += e.message;
      resolve(null);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve(killed ? null : code);
    });
  });
  const activity = server.activity();
  await server.close();
  const output = readClientOutput(stdout);
  const judged = judgeClient(scenario, output, activity, killed, exit);
  const verdict = judged.verdict;
  let observed = judged.observed;
  if (verdict === 'error' && stderr.trim() !== '') {
    observed += `; stderr: ${stderr.trim().split('\n').at(-1)!.slice(0, 160)}`;
  }
  const fix = CLIENT_FIX[verdict];
  return {
    row: options.name ?? cmd,
    scenario: scenario.name,
    verdict,
    observed,
    ...(fix !== undefined ? { fix } : {}),
    activity,
    delivered: output.delivered,
    ...(output.surfaced !== undefined ? { surfaced: output.surfaced } : {}),
    exit,
    ms: Date.now() - started,
  };
}

/** A client row: a name and the shell command that runs the client. */
export interface ClientCommandRow {
  name: string;
  cmd: string;
}

/** Runs every row against every scenario (or those in `only`). */
export async function runClientCommands(
  rows: readonly ClientCommandRow[],
  options: Omit<ClientCommandOptions, 'name'> & { only?: readonly string[] } = {},
  onCell?: (cell: ClientCell) => void,
): Promise<ClientCell[]> {
  const scenarios = HOSTILE_SCENARIOS.filter((s) => !options.only || options.only.includes(s.name));
  const cells: ClientCell[] = [];
  for (const row of rows) {
    for (const s of scenarios) {
      const cell = await runClientCommand(row.cmd, s, { ...options, name: row.name });
      cells.push(cell);
      onCell?.(cell);
    }
  }
  return cells;
}

/**
 * The words of the client report a user cannot know from the protocol alone, defined once and
 * printed with it (properties/conformance/plain-words.test.ts checks a real run's report).
 */
export const CLIENT_LEGEND: readonly string[] = [
  'how to read it:',
  '  cell         one client scenario run with one client (row × scenario)',
  '  cursor       the Last-Event-ID the client sent when it reconnected',
  '  delivered    what the client handed to its application: "c1#4" is message 4 of call c1,',
  '               "c1:result" its result',
  '  surfaced     the error the client reported',
  '  server saw   what the hostile server recorded of the client (calls, reconnects, GETs)',
];

/** The cells as text: a line per cell, the fix under each failing one, then the legend. */
export function renderClientCells(cells: readonly ClientCell[]): string {
  const lines: string[] = [];
  for (const c of cells) {
    lines.push(`- ${c.row} × ${c.scenario}: ${c.verdict}. ${c.observed}`);
    if (c.fix) lines.push(`  fix: ${c.fix}`);
  }
  const tally = new Map<string, number>();
  for (const c of cells) tally.set(c.verdict, (tally.get(c.verdict) ?? 0) + 1);
  lines.push('', ...CLIENT_LEGEND);
  lines.push('', `verdicts: ${[...tally].map(([v, n]) => `${v} ${n}`).join(', ')}`);
  return lines.join('\n');
}

export { activityOf };
