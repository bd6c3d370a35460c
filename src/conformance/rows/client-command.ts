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
import { randomUUID } from 'node:crypto';
import process from 'node:process';
import { killGroup, killMarked, RUN_MARK } from '../kill-after.js';
import { activityOf, describeActivity, type ClientActivity } from '../hostile-activity.js';
import { HOSTILE_SCENARIOS, startHostileServer, type HostileScenario } from '../hostile-server.js';
import { sequenceGap, STORM_PER_SECOND } from '../hostile-wire.js';

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
    'change the client: bound every wait (how long a reconnect may stay unproven, a call ' +
    'timeout) and fail the call when it runs out; a client that already bounds it (at 60 s, ' +
    'say) is judged by running the kit with --client-timeout above that bound',
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

/** What the client printed, read. */
export interface ClientOutput {
  /** `<tag>#<i>` and `<tag>:result` in the order delivered. */
  delivered: string[];
  /** The error it surfaced (the first `{"error": …}` line), if any. */
  surfaced?: string;
  /** Lines that were not JSON. */
  unreadable: number;
  /** The first unreadable line (its first 80 characters), to show. */
  firstUnreadable?: string;
}

/**
 * A message text `c<k>#<i>` or `x9#<i>` anywhere in a line (not inside a longer word), or a
 * result text `c<k>:result:<n>`.
 */
const MESSAGE = /(?<![A-Za-z0-9_-])([A-Za-z][A-Za-z0-9_]*)#(\d+)(?!\d)/g;
const RESULT = /(?<![A-Za-z0-9_-])([A-Za-z][A-Za-z0-9_]*):result:(\d+)(?!\d)/g;

/**
 * Reads a client's stdout by the contract: the texts `c<k>#<i>` and `c<k>:result:<n>` anywhere
 * in a line (`{"msg": "progress c1#3 of 8"}` delivers c1#3), each text once per line, in the
 * order they stand; a line `{"error": …}` is the error surfaced, never a delivery.
 */
export function readClientOutput(stdout: string): ClientOutput {
  const out: ClientOutput = { delivered: [], unreadable: 0 };
  for (const line of stdout.split('\n')) {
    if (line.trim() === '') continue;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      out.unreadable++;
      out.firstUnreadable ??= line.slice(0, 80);
      continue;
    }
    if (v !== null && typeof v === 'object' && !Array.isArray(v) && 'error' in v) {
      const e = (v as { error: unknown }).error;
      out.surfaced ??= (typeof e === 'string' ? e : JSON.stringify(e)).slice(0, 200);
      continue;
    }
    const found: { at: number; key: string }[] = [];
    for (const m of line.matchAll(MESSAGE)) found.push({ at: m.index, key: `${m[1]}#${m[2]}` });
    for (const m of line.matchAll(RESULT)) found.push({ at: m.index, key: `${m[1]}:result` });
    found.sort((x, y) => x.at - y.at);
    for (const key of new Set(found.map((f) => f.key))) out.delivered.push(key);
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

/** What the runner knows beyond the output and the activity. */
export interface JudgeContext {
  /** The bound the run was killed at (`--client-timeout`, ms). */
  boundMs?: number;
}

/** Judges one run: the order below is the order of gravity. */
export function judgeClient(
  scenario: HostileScenario,
  output: ClientOutput,
  activity: ClientActivity,
  killed: boolean,
  exit: number | null,
  context: JudgeContext = {},
): { verdict: ClientVerdict; observed: string } {
  const act = describeActivity(activity);
  const got = output.delivered;
  const shown = got.length <= 12 ? got.join(' ') : `${got.slice(0, 12).join(' ')} …`;
  const said = output.surfaced !== undefined ? `; surfaced: ${output.surfaced}` : '';
  const unreadable =
    output.unreadable > 0
      ? `; ${output.unreadable} line(s) not JSON, the first: ${JSON.stringify(output.firstUnreadable ?? '')}`
      : '';
  const base = `delivered ${shown || 'nothing'}${said}${unreadable}; server saw: ${act}`;
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
  // Per call: a message delivered after a missing one is a gap the application never saw. A
  // re-issued call is a call of its own (c2): what c1 delivered never fills c2's gaps.
  const byCall = new Map<string, string[]>();
  for (const d of got) {
    const tag = d.split(/[#:]/)[0]!;
    byCall.set(tag, [...(byCall.get(tag) ?? []), d]);
  }
  for (const [tag, items] of byCall) {
    // A progress-blind client (it shows a call's result and none of its progress: most agent
    // frameworks have no progress API) is judged from the wire: what the server served it on
    // that call's stream, the cursors it sent included. A skip it was served and accepted is a
    // gap, whatever it shows.
    const blind = items.length > 0 && items.every((d) => d.endsWith(':result'));
    const served = activity.served[tag];
    if (!blind || served === undefined) {
      const gap = sequenceGap(tag, items);
      if (gap !== null) return { verdict: 'silent gap', observed: `${gap}; ${base}` };
    } else {
      const wire = sequenceGap(tag, served);
      if (wire !== null) {
        const cursors = activity.cursors.length
          ? ` after its cursor ${activity.cursors.at(-1)}`
          : '';
        return {
          verdict: 'silent gap',
          observed:
            `progress-blind (it shows no progress): it accepted and surfaced ${tag}'s result, and ` +
            `the server served it ${wire}${cursors}; ${base}`,
        };
      }
    }
  }
  if (killed) {
    const bound = context.boundMs !== undefined ? ` (--client-timeout ${context.boundMs} ms)` : '';
    return {
      verdict: 'endless wait',
      observed: `still waiting at the kit's bound${bound}, with neither the result nor an error; ${base}`,
    };
  }
  const lastCall = `c${Math.max(1, activity.calls)}`;
  if (byCall.get(lastCall)?.includes(`${lastCall}:result`)) {
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

/** The most a client may print on stdout; beyond it the run stops and the cell is `error`. */
export const MAX_CLIENT_OUTPUT = 1 << 20;

/**
 * After the command exited, how long its stdout may stay open (a background job of its shell
 * holding it) before the kit reads what came and ends the run: the command's own end is the
 * run's end, never the bound.
 */
const AFTER_EXIT_MS = 500;

/** How one run of the command ended. */
interface CommandRun {
  exit: number | null;
  stdout: string;
  stderr: string;
  /** Killed at the bound. */
  killed: boolean;
  /** Stopped for printing more than {@link MAX_CLIENT_OUTPUT}. */
  overflow: boolean;
}

/**
 * Runs `cmd` in a shell with `env`, bounded: at `timeoutMs` (or once stdout passed
 * {@link MAX_CLIENT_OUTPUT}) its process group and every process marked with the run's
 * {@link RUN_MARK} are killed and the run ends at once, whoever still holds its pipes; once the
 * command exited, its pipes get {@link AFTER_EXIT_MS} to drain. Whatever it left running (a
 * background job, a child that left the group) is killed before this resolves.
 */
function runBounded(cmd: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<CommandRun> {
  const mark = randomUUID();
  return new Promise((resolve) => {
    const run: CommandRun = { exit: null, stdout: '', stderr: '', killed: false, overflow: false };
    const child = spawn(cmd, {
      shell: true,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...env, [RUN_MARK]: mark },
    });
    let done = false;
    let afterExit: NodeJS.Timeout | undefined;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearTimeout(afterExit);
      killGroup(child);
      child.stdout.destroy();
      child.stderr.destroy();
      void killMarked(mark).then(() => resolve(run));
    };
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (c: string) => {
      if (run.stdout.length + c.length > MAX_CLIENT_OUTPUT) {
        run.stdout += c.slice(0, MAX_CLIENT_OUTPUT - run.stdout.length);
        run.overflow = true;
        finish();
      } else run.stdout += c;
    });
    child.stderr.on('data', (c: string) => (run.stderr = (run.stderr + c).slice(-2000)));
    const timer = setTimeout(() => {
      run.killed = true;
      finish();
    }, timeoutMs);
    child.on('error', (e) => {
      run.stderr += e.message;
      finish();
    });
    child.on('exit', (code) => {
      run.exit = code;
      if (done) return;
      // The command is over; its output is read until its pipe closes, or briefly when a job
      // it left behind still holds it.
      afterExit = setTimeout(finish, AFTER_EXIT_MS);
      if (child.stdout.readableEnded) finish();
      else child.stdout.once('end', finish);
    });
  });
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
  const run = await runBounded(cmd, { ...process.env, MCP_URL: server.url }, timeoutMs);
  const { stderr, killed } = run;
  const exit = killed ? null : run.exit;
  const activity = server.activity();
  await server.close();
  const output = readClientOutput(run.stdout);
  const judged = run.overflow
    ? {
        verdict: 'error' as const,
        observed:
          `the command printed more than ${MAX_CLIENT_OUTPUT} bytes on stdout and was stopped ` +
          `there (the contract: one JSON line per message it delivered); server saw: ` +
          describeActivity(activity),
      }
    : judgeClient(scenario, output, activity, killed, exit, { boundMs: timeoutMs });
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

export { activityOf, sequenceGap, STORM_PER_SECOND };
