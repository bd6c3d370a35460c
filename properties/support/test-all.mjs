/**
 * `npm test`: the static checks (`npm run lint`, `npm run typecheck`, `npm run lint:layers`: the
 * layer rules of .dependency-cruiser.cjs) and the vitest suites at
 * the same time, instead of one after the other.
 *
 * Why: many suites wait (on servers, npm, a browser, Redis, timers) while they hold a worker, so
 * the cores are not busy all through a vitest run; the checks are about 35 s of CPU that used to
 * come first and add their whole time to the run. They run at a lower priority (nice 10), so they
 * take the cores the suites leave idle and never slow a suite down.
 *
 * The suites stream their output as usual; each check's output is held and printed after the
 * suites end (interleaved, it would break vitest's live display), with a one-line summary. The
 * exit status is the first failure's (lint, typecheck, lint:layers, then vitest), 0 when all pass.
 * Arguments go to vitest: `npm test -- properties/verify` runs the checks and that folder.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { constants, setPriority } from 'node:os';
import { dirname, join } from 'node:path';
import process from 'node:process';

/** The niceness of the checks: a tenth of a suite's share of a busy core. */
const CHECK_NICENESS = 10;

/**
 * A young generation of 64 MB instead of V8's default 16 MB: the checks (tsc, prettier, eslint)
 * and the suites allocate short-lived objects at a high rate, and with the small default most
 * of them are copied by a scavenge before they die. Measured on the 2-core machine: 8-9% less
 * CPU for tsc and prettier; vitest.config.ts gives its workers the same flag (13-15% less CPU
 * for the model, world, verify and trace suites). The suites' child processes inherit it.
 */
const YOUNG_GENERATION = '--max-semi-space-size=64';

/** This process's environment with {@link YOUNG_GENERATION} added to `NODE_OPTIONS`. */
function withYoungGeneration() {
  const nodeOptions = [process.env.NODE_OPTIONS, YOUNG_GENERATION].filter(Boolean).join(' ');
  return { ...process.env, NODE_OPTIONS: nodeOptions };
}

/** `npm` as this process was started by it (npm_execpath), else the one on PATH. */
function npmCommand(args) {
  const cli = process.env.npm_execpath;
  return cli && /\.[cm]?js$/.test(cli)
    ? [process.execPath, [cli, ...args]]
    : [process.platform === 'win32' ? 'npm.cmd' : 'npm', args];
}

/**
 * Starts `npm run <script>` with its output held; resolves to the script, its status and
 * output and its seconds. The child is niced right after it starts: npm and the tools it runs
 * inherit the niceness.
 */
function runCheck(script) {
  const started = Date.now();
  const [cmd, args] = npmCommand(['run', '--silent', script]);
  const child = spawn(cmd, args, {
    env: withYoungGeneration(),
    stdio: ['ignore', 'pipe', 'pipe'],
    shell: cmd.endsWith('.cmd'),
  });
  children.add(child);
  try {
    if (child.pid !== undefined) setPriority(child.pid, CHECK_NICENESS);
  } catch {
    // Not allowed here: the check still runs, at the suites' priority.
  }
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (t) => (output += t));
  child.stderr.setEncoding('utf8').on('data', (t) => (output += t));
  return new Promise((resolve) => {
    // A check that cannot start (no npm) fails with the shell's "not found" status.
    child.on('error', (e) => {
      output += `${e.message}\n`;
      resolve({ name: script, code: 127, output, seconds: since(started) });
    });
    child.on('close', (code, signal) => {
      children.delete(child);
      resolve({ name: script, code: code ?? failedBy(signal), output, seconds: since(started) });
    });
  });
}

/** Runs `vitest run ...args` with the terminal as its own; resolves like {@link runCheck}. */
function runVitest(args) {
  const started = Date.now();
  const pkg = createRequire(import.meta.url).resolve('vitest/package.json');
  // The suites' own node processes (the CLI, servers, npm) get the same young generation.
  const child = spawn(process.execPath, [join(dirname(pkg), 'vitest.mjs'), 'run', ...args], {
    env: withYoungGeneration(),
    stdio: 'inherit',
  });
  children.add(child);
  return new Promise((resolve) => {
    child.on('error', (e) => {
      process.stderr.write(`vitest: ${e.message}\n`);
      resolve({ name: 'vitest', code: 127, output: '', seconds: since(started) });
    });
    child.on('close', (code, signal) => {
      children.delete(child);
      resolve({
        name: 'vitest',
        code: code ?? failedBy(signal),
        output: '',
        seconds: since(started),
      });
    });
  });
}

/** The shell's status for a process ended by `signal`. */
function failedBy(signal) {
  return 128 + (constants.signals[signal] ?? 0);
}

function since(t) {
  return ((Date.now() - t) / 1000).toFixed(1);
}

/** The children still running, stopped if this process is told to stop. */
const children = new Set();
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    for (const child of children) child.kill(signal);
    process.exitCode = failedBy(signal);
  });
}

const checks = [runCheck('lint'), runCheck('typecheck'), runCheck('lint:layers')];
const suites = await runVitest(process.argv.slice(2));
const results = [...(await Promise.all(checks)), suites];
for (const r of results.slice(0, checks.length)) {
  const status = r.code === 0 ? 'passed' : `FAILED (exit ${r.code})`;
  process.stdout.write(`\nnpm run ${r.name}: ${status} in ${r.seconds} s\n${r.output.trimEnd()}\n`);
}
process.stdout.write(
  `\nnpm test: ${results.map((r) => `${r.name} ${r.code === 0 ? 'ok' : 'FAILED'} (${r.seconds} s)`).join(', ')}\n`,
);
process.exitCode = results.find((r) => r.code !== 0)?.code ?? 0;
