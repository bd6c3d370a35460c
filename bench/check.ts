/**
 * `npm run bench -- check`: throughput and memory of `mcp-resumption check` on a generated
 * trace, next to a baseline in the same run that only reads the lines with `node:readline` and
 * `JSON.parse`s them. Each phase runs in its own child process, so that its peak RSS is its
 * own; RSS is also sampled during the run to see whether memory stays flat.
 *
 * Trace length: 1,000,000 lines by default; `npm run bench -- check --lines=10000000` or
 * `CHECK_BENCH_LINES=10000000 npm run bench -- check` for the long run.
 */
import { fork } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkCommand } from '../src/commands/check.js';
import { TraceChecker } from '../src/trace/checker.js';
import { parseTraceLine } from '../src/trace/format.js';
import { forEachLine, openTraceSource } from '../src/trace/read.js';
import { pairUp, pairsWanted, spread, type Slice } from './alternate.js';
import type { Bench } from './bench.js';

const DEFAULT_LINES = 1_000_000;
/** Lines of the smaller trace the xstate engine is timed on (it is about 50x slower). */
const XSTATE_LINES = 50_000;

/** The trace length asked for: `--lines=N`, else `CHECK_BENCH_LINES`, else one million. */
function linesWanted(): number {
  const arg = process.argv.find((a) => a.startsWith('--lines='));
  const raw = arg ? arg.slice('--lines='.length) : process.env['CHECK_BENCH_LINES'];
  if (raw === undefined) return DEFAULT_LINES;
  const n = Number(raw.replace(/_/g, ''));
  if (!Number.isSafeInteger(n) || n < 1000) throw new Error(`--lines must be >= 1000, got ${raw}`);
  return n;
}

/**
 * Writes a realistic trace of `n` lines: a long-running tool's stream (events with ids and
 * payloads, keepalives) with an idle timeout and a reconnect every ~2,000 lines, answered in
 * turn with a floor that covers the cursor, a plain 200 proven by the successor, a skip, and
 * a 404 followed by a new session; each with the implementation's decision.
 */
export async function writeTrace(file: string, n: number): Promise<void> {
  const out = createWriteStream(file);
  let written = 0;
  let id = 0;
  let t = 0;
  let buf: string[] = [];
  const push = async (line: string) => {
    buf.push(line);
    written++;
    if (buf.length >= 4096) {
      const chunk = buf.join('\n') + '\n';
      buf = [];
      if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
    }
  };
  await push(JSON.stringify({ type: 'open', status: 200, epoch: 'e1', t }));
  let round = 0;
  let epoch = 'e1';
  while (written < n) {
    t += 15;
    const left = n - written;
    if (written % 2000 < 1 && written > 0 && left > 8) {
      const cursor = id;
      await push(JSON.stringify({ type: 'idle-timeout', t }));
      await push(JSON.stringify({ type: 'reconnect', cursor, t }));
      switch (round++ % 4) {
        case 0:
          await push(JSON.stringify({ type: 'response', status: 200, floor: cursor - 10, t }));
          await push(JSON.stringify({ type: 'decision', outcome: 'delayed', t }));
          break;
        case 1:
          await push(JSON.stringify({ type: 'response', status: 200, epoch, t }));
          await push(JSON.stringify({ type: 'decision', outcome: 'resumed', t }));
          break;
        case 2:
          await push(JSON.stringify({ type: 'response', status: 200, t }));
          id += 5; // the server skipped five events
          await push(JSON.stringify({ type: 'decision', outcome: 'resumption-failed', t }));
          break;
        default:
          await push(JSON.stringify({ type: 'response', status: 404, t }));
          await push(JSON.stringify({ type: 'decision', outcome: 'session-lost', t }));
          epoch = `e${round}`;
          await push(JSON.stringify({ type: 'open', status: 200, epoch, t }));
          id = 0;
      }
      continue;
    }
    if (written % 10 === 5) await push(JSON.stringify({ type: 'keepalive', t }));
    else {
      id++;
      await push(
        JSON.stringify({ type: 'event', id, t, kind: 'progress', data: { done: id % 100 } }),
      );
    }
  }
  out.write(buf.length ? buf.join('\n') + '\n' : '');
  await new Promise<void>((resolve, reject) =>
    out.end((e?: Error | null) => (e ? reject(e) : resolve())),
  );
}

/** What one phase measured, in its own process. */
interface PhaseResult {
  phase: string;
  lines: number;
  ms: number;
  /** Peak RSS of the process, in MiB. */
  peakMiB: number;
  /** RSS at the start of the run, in MiB. */
  startMiB: number;
  /** Highest RSS seen in the first and the second half of the run, in MiB. */
  firstHalfMiB: number;
  secondHalfMiB: number;
  exitCode?: number;
}

type Phase = 'split' | 'baseline' | 'validate' | 'rules' | 'check' | 'xstate';

/** The breakdown: each phase does what the one before it does, and one more thing. */
const BREAKDOWN: [Phase, string][] = [
  ['split', 'line splitting (readline alone)'],
  ['baseline', '+ JSON.parse of each line'],
  // parseTraceLine replaces JSON.parse: common lines (events with an integer id, keepalives)
  // are recognized without it (src/trace/common-lines.ts), so this step can take time away.
  ['validate', '+ format validation (parseTraceLine instead of JSON.parse)'],
  ['rules', '+ compiled engine and checker rules (TraceChecker, no output)'],
  ['check', '+ output (check --json, the whole command)'],
];

/** Runs one phase in this process (the child side). */
async function runPhase(phase: Phase, file: string): Promise<PhaseResult> {
  const mib = (bytes: number) => bytes / 2 ** 20;
  const samples: Array<[number, number]> = [];
  const sample = () => samples.push([performance.now(), process.memoryUsage().rss]);
  const startMiB = mib(process.memoryUsage().rss);
  const timer = setInterval(sample, 25);
  const t0 = performance.now();
  let lines = 0;
  let exitCode: number | undefined;
  if (phase === 'split') {
    await forEachLine(openTraceSource(file), () => {
      lines++;
    });
  } else if (phase === 'baseline') {
    await forEachLine(openTraceSource(file), (line) => {
      lines++;
      JSON.parse(line);
    });
  } else if (phase === 'validate') {
    await forEachLine(openTraceSource(file), (line) => {
      lines++;
      parseTraceLine(line, lines);
    });
  } else if (phase === 'rules') {
    const checker = new TraceChecker();
    await forEachLine(openTraceSource(file), (line) => {
      lines++;
      checker.push(line);
    });
    exitCode = checker.finish().exitCode;
  } else if (phase === 'check') {
    let outChars = 0;
    exitCode = await checkCommand.run([file, '--json'], {
      out: (s) => (outChars += s.length),
      err: (s) => process.stderr.write(s),
    });
    lines = -1; // counted by the parent
  } else {
    const checker = new TraceChecker({ engine: 'xstate' });
    await forEachLine(openTraceSource(file), (line) => {
      lines++;
      checker.push(line);
    });
    exitCode = checker.finish().exitCode;
  }
  const t1 = performance.now();
  clearInterval(timer);
  sample();
  const mid = (t0 + t1) / 2;
  const maxOf = (xs: Array<[number, number]>) => mib(Math.max(0, ...xs.map(([, r]) => r)));
  return {
    phase,
    lines,
    ms: t1 - t0,
    peakMiB: process.resourceUsage().maxRSS / 1024,
    startMiB,
    firstHalfMiB: maxOf(samples.filter(([t]) => t <= mid)),
    secondHalfMiB: maxOf(samples.filter(([t]) => t > mid)),
    ...(exitCode !== undefined ? { exitCode } : {}),
  };
}

/** Runs one phase in a child process (the parent side). */
function inChild(phase: Phase, file: string): Promise<PhaseResult> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(import.meta.url), ['--check-bench-child', phase, file], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let result: PhaseResult | undefined;
    child.on('message', (m) => (result = m as PhaseResult));
    child.on('error', reject);
    child.on('exit', (code) =>
      result ? resolve(result) : reject(new Error(`bench phase ${phase} exited ${code}`)),
    );
  });
}

function rate(lines: number, ms: number): string {
  return `${Math.round((lines / ms) * 1000).toLocaleString('en-US')} lines/s`;
}

/** Flat: the second half's peak is within 10% (and 16 MiB) of the first half's. */
function flat(r: PhaseResult): boolean {
  return r.secondHalfMiB <= Math.max(r.firstHalfMiB * 1.1, r.firstHalfMiB + 16);
}

function memory(r: PhaseResult): string {
  return `peak RSS ${r.peakMiB.toFixed(0)} MiB (start ${r.startMiB.toFixed(0)}, max in first half ${r.firstHalfMiB.toFixed(0)}, second half ${r.secondHalfMiB.toFixed(0)}: ${flat(r) ? 'flat' : 'GROWING'})`;
}

/** The `check` benchmark. */
export const checkBench: Bench = {
  name: 'check',
  summary: 'mcp-resumption check on a generated trace vs readline + JSON.parse (same run)',
  async run(log) {
    const n = linesWanted();
    const dir = await mkdtemp(join(tmpdir(), 'check-bench-'));
    try {
      const file = join(dir, 'trace.jsonl');
      const small = join(dir, 'small.jsonl');
      log(`writing a ${n.toLocaleString('en-US')}-line trace to ${file}`);
      await writeTrace(file, n);
      await writeTrace(small, XSTATE_LINES);
      const size = (await stat(file)).size;
      const base: PhaseResult[] = [];
      const checks: PhaseResult[] = [];
      const pairs = pairsWanted();
      for (let i = 0; i < pairs; i++) {
        log(`pair ${i + 1}/${pairs}: baseline (readline + JSON.parse), then check --json`);
        base.push(await inChild('baseline', file));
        checks.push({ ...(await inChild('check', file)), lines: base[i]!.lines });
      }
      const lines = base[0]!.lines;
      const slice = (r: PhaseResult): Slice => ({ units: lines, secs: r.ms / 1000 });
      const ratio = pairUp(base.map(slice), checks.map(slice), (b, c) => c / b);
      const mid = (xs: PhaseResult[]) => [...xs].sort((a, b) => a.ms - b.ms)[xs.length >> 1]!;
      const check = mid(checks);
      log('breakdown, one run a phase');
      const phases: string[] = [];
      let before = 0;
      for (const [phase, label] of BREAKDOWN) {
        const r = await inChild(phase, file);
        const us = (r.ms * 1000) / lines;
        phases.push(
          `  ${label.padEnd(64)} ${us.toFixed(2)} µs/line (${(us - before >= 0 ? '+' : '') + (us - before).toFixed(2)})`,
        );
        before = us;
      }
      log(`check with the xstate engine on ${XSTATE_LINES.toLocaleString('en-US')} lines`);
      const viaXstate = await inChild('xstate', small);
      return [
        `trace: ${lines.toLocaleString('en-US')} lines, ${(size / 2 ** 20).toFixed(0)} MiB`,
        `baseline (readline + JSON.parse): ${rate(lines, mid(base).ms)} (median run); ${memory(mid(base))}`,
        `check --json:                     ${rate(lines, check.ms)} (median run); ${memory(check)}; exit ${check.exitCode}`,
        `check ratio check / baseline: ${spread(ratio, 2)}; target >= 0.8: ${ratio.median >= 0.8 ? 'met' : 'not met'}; memory ${checks.every(flat) ? 'flat' : 'GROWING'}`,
        'breakdown (cumulative time per line, and what each step adds):',
        ...phases,
        `for reference, the xstate engine (model/run.ts step per line): ${rate(viaXstate.lines, viaXstate.ms)} on ${viaXstate.lines.toLocaleString('en-US')} lines`,
      ];
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
};

const childAt = process.argv.indexOf('--check-bench-child');
if (childAt >= 0) {
  const phase = process.argv[childAt + 1] as Phase;
  const file = process.argv[childAt + 2] as string;
  runPhase(phase, file).then(
    (r) => process.send?.(r, () => process.exit(0)),
    (e: unknown) => {
      process.stderr.write(`bench phase ${phase}: ${String(e)}\n`);
      process.exit(1);
    },
  );
}
