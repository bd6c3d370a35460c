/**
 * `check` as a process, where the operating system has a say: a reader that goes away early
 * (`check trace | head -1`, issue 19 item 14). The CLI is bundled with esbuild (as the
 * playground's test does) and run with node; its stdout is a pipe the test closes after the
 * first chunk.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, expect, test } from 'vitest';
import { bundleForNode } from '../support/bundle.js';
import { resumedReconnectLines } from './helpers.js';

const DIR = fileURLToPath(new URL('../../reports/check-cli/', import.meta.url));
const CLI = `${DIR}cli.mjs`;

beforeAll(async () => {
  await bundleForNode(fileURLToPath(new URL('../../src/cli.ts', import.meta.url)), CLI);
}, 120_000);

/** A trace of `n` resumed reconnects (exit 0), or with an unsafe accept at the end (exit 1). */
function traceFile(name: string, n: number, unsafe: boolean): string {
  const lines = [
    '{"type":"open","status":200}',
    '{"type":"event","id":1}',
    ...resumedReconnectLines(n, true),
  ];
  if (unsafe) {
    lines.push(
      '{"type":"disconnect"}',
      `{"type":"reconnect","cursor":${n + 1}}`,
      '{"type":"response","status":200}',
      `{"type":"event","id":${n + 9}}`,
      '{"type":"decision","outcome":"resumed"}',
    );
  }
  mkdirSync(DIR, { recursive: true });
  const path = `${DIR}${name}.jsonl`;
  writeFileSync(path, lines.join('\n') + '\n');
  return path;
}

/** Runs `check FILE ...args`, closes its stdout after the first chunk: exit code and stderr. */
function headOne(args: string[]): Promise<{ code: number | null; err: string; first: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'check', ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    let first = '';
    child.stderr.setEncoding('utf8').on('data', (t: string) => (err += t));
    child.stdout.setEncoding('utf8').once('data', (t: string) => {
      first = t;
      child.stdout.destroy();
    });
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error('check did not exit within 60 s'));
    }, 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, err, first });
    });
  });
}

test('check trace | head -1: a reader gone early ends nothing; the exit status is the verdict', async () => {
  const clean = await headOne([traceFile('clean', 20_000, false)]);
  expect(clean.first).toMatch(/^line 4: reconnect with cursor 1/);
  expect(clean.err).toBe('');
  expect(clean.code).toBe(0);
  const unsafe = await headOne([traceFile('unsafe', 20_000, true), '--json']);
  expect(unsafe.first).toMatch(/^\{"reconnects":\[/);
  expect(unsafe.err).toBe('');
  expect(unsafe.code).toBe(1);
}, 180_000);

test('the task-stream corpus (mcp-tasks) through the bundled CLI: every exit status and bad-input line as expected', async () => {
  const corpus = fileURLToPath(new URL('../corpus/', import.meta.url));
  const names = readdirSync(corpus).filter((f) => f.startsWith('tasks-') && f.endsWith('.jsonl'));
  expect(names.length).toBeGreaterThanOrEqual(8);
  // The processes run side by side: each is independent, and one at a time costs a process
  // start per trace in the suite's wall time.
  const runs = await Promise.all(
    names.map(async (f) => {
      const path = `${corpus}${f}`;
      const expected = JSON.parse(
        readFileSync(path.replace(/\.jsonl$/, '.expected.json'), 'utf8'),
      ) as { args?: string[]; exit: number; error?: string };
      return { f, path, expected, run: await headOne([path, '--json', ...(expected.args ?? [])]) };
    }),
  );
  for (const { f, path, expected, run } of runs) {
    expect(run.code, f).toBe(expected.exit);
    expect(run.err, f).toBe(
      expected.error === undefined ? '' : `check: ${path}: ${expected.error}\n`,
    );
  }
}, 600_000);

/** Runs `check ...args` from `cwd` to the end: exit code, stdout and stderr. */
function checkFrom(
  cwd: string,
  args: string[],
): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'check', ...args], {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (t: string) => (out += t));
    child.stderr.setEncoding('utf8').on('data', (t: string) => (err += t));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

test('outside a clone, a corpus path the docs name is read from the package (check properties/corpus/…)', async () => {
  const elsewhere = mkdtempSync(join(tmpdir(), 'mcpr-check-'));
  const found = await checkFrom(elsewhere, ['properties/corpus/rule6-skip.jsonl', '--json']);
  expect(found.err).toBe('');
  expect(found.code).toBe(0);
  expect(JSON.parse(found.out).reconnects[0].code).toBe('skip');
  // Only the corpus is looked up there: a missing corpus file is still a clear error.
  const missing = await checkFrom(elsewhere, ['properties/corpus/no-such-trace.jsonl']);
  expect(missing.code).toBe(2);
  expect(missing.err).toMatch(/^check: cannot read properties\/corpus\/no-such-trace\.jsonl/);
}, 60_000);
