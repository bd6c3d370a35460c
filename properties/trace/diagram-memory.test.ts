/**
 * `diagram --trace` on a large trace: streamed, its peak memory within 2x of `check` on the
 * same trace (it held the trace, its lines and the whole diagram at once: a 406 MB trace ran
 * out of a 4.4 GB heap, where `check` read it in about 550 MB); and a trace over its stated
 * bound (64 MiB) refused in one line, exit 2. Both commands run as processes (the CLI bundled
 * with esbuild, as cli-process.test.ts does), their stdout to a file, and each reports its
 * peak RSS (`process.resourceUsage().maxRSS`) on exit.
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, truncateSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, expect, test } from 'vitest';
import { bundleForNode } from '../support/bundle.js';
import { resumedReconnectLines } from './helpers.js';

const DIR = fileURLToPath(new URL('../../reports/diagram-cli/', import.meta.url));
const CLI = `${DIR}cli.mjs`;
/** Printed by the child at exit: its peak RSS in KiB. */
const PEAK = `process.on('exit', () => process.stderr.write('maxrss ' + process.resourceUsage().maxRSS + '\\n'))`;

beforeAll(async () => {
  mkdirSync(DIR, { recursive: true });
  await bundleForNode(fileURLToPath(new URL('../../src/cli.ts', import.meta.url)), CLI);
}, 120_000);

/** Runs the CLI with `args`, stdout to a file: exit code, stderr, peak RSS (KiB). */
function run(args: string[]): Promise<{ code: number | null; err: string; peakKiB: number }> {
  return new Promise((resolve, reject) => {
    const out = openSync(`${DIR}out.txt`, 'w');
    const child = spawn(
      process.execPath,
      ['--import', `data:text/javascript,${encodeURIComponent(PEAK)}`, CLI, ...args],
      // As a user runs it: without the larger young generation `npm test` gives its workers
      // (NODE_OPTIONS), which lets a process that allocates more hold up to 3 x 64 MB more.
      { stdio: ['ignore', out, 'pipe'], env: { ...process.env, NODE_OPTIONS: '' } },
    );
    closeSync(out);
    let err = '';
    child.stderr!.setEncoding('utf8').on('data', (t: string) => (err += t));
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`${args[0]} did not exit within 120 s`));
    }, 120_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      const peak = /maxrss (\d+)/.exec(err);
      resolve({
        code,
        err: err.replace(/maxrss \d+\n/, ''),
        peakKiB: peak ? Number(peak[1]) : NaN,
      });
    });
  });
}

test('diagram --trace of a 30 MB trace: peak memory within 2x of check on the same trace', async () => {
  // 60,000 resumed reconnects (a decision note each), with runs of events between them.
  const path = `${DIR}large.jsonl`;
  const chunk = ['{"type":"open","status":200}', '{"type":"event","id":1}'];
  const body = resumedReconnectLines(60_000, true);
  const pad = Array.from(
    { length: 8 },
    (_, i) => `{"type":"keepalive","note":"${'x'.repeat(4 * i)}"}`,
  );
  const lines = [...chunk];
  for (let i = 0; i < body.length; i += 5) lines.push(...body.slice(i, i + 5), ...pad);
  writeFileSync(path, lines.join('\n') + '\n');
  const check = await run(['check', path]);
  expect(check.err).toBe('');
  const diagram = await run(['diagram', '--trace', path]);
  expect(diagram.err).toBe('');
  expect(diagram.code).toBe(0);
  console.log(
    `[diagram memory] ${lines.length} lines: check peak ${(check.peakKiB / 1024).toFixed(0)} MiB, ` +
      `diagram --trace peak ${(diagram.peakKiB / 1024).toFixed(0)} MiB ` +
      `(${(diagram.peakKiB / check.peakKiB).toFixed(2)}x)`,
  );
  expect(diagram.peakKiB).toBeLessThanOrEqual(2 * check.peakKiB);
}, 300_000);

test('a trace over 64 MiB is refused in one line, exit 2, before it is read', async () => {
  const path = `${DIR}huge.jsonl`;
  writeFileSync(path, '');
  truncateSync(path, 65 * 2 ** 20); // sparse: its size is all that is looked at
  const r = await run(['diagram', '--trace', path]);
  expect(r.code).toBe(2);
  expect(r.err.trim().split('\n')).toHaveLength(1);
  expect(r.err).toMatch(/is 65\.0 MiB; --trace draws traces of at most 64 MiB/);
});

test('the streamed diagram is the diagram: every corpus trace (under its own binding line), line for line', async () => {
  const { readdirSync, readFileSync } = await import('node:fs');
  const { streamTraceDiagram } = await import('../../src/docs-gen/trace-diagram-stream.js');
  const { traceSequenceDiagram } = await import('../../src/docs-gen/trace-diagram.js');
  const corpus = fileURLToPath(new URL('../corpus/', import.meta.url));
  let drawn = 0;
  for (const name of readdirSync(corpus).filter((f) => f.endsWith('.jsonl'))) {
    const path = `${corpus}${name}`;
    const whole = await traceSequenceDiagram(readFileSync(path, 'utf8')).catch(() => null);
    let streamed = '';
    const ok = await streamTraceDiagram(path, {}, (t) => (streamed += t)).then(
      () => true,
      () => false,
    );
    expect(ok, name).toBe(whole !== null);
    if (whole === null) continue;
    expect(streamed, name).toBe(`${whole}\n`);
    drawn++;
  }
  expect(drawn).toBeGreaterThan(10);
});
