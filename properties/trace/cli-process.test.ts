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

/**
 * Runs `check ...args` as a process (from `cwd`, by default this one's): exit code, stderr and
 * stdout. With `head`, stdout is closed after its first chunk (`check … | head -1`) and `out` is
 * that chunk. A process that does not exit within 60 s fails the call.
 */
function runCheck(
  args: string[],
  { cwd, head = false }: { cwd?: string; head?: boolean } = {},
): Promise<{ code: number | null; err: string; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'check', ...args], {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    let out = '';
    child.stderr.setEncoding('utf8').on('data', (t: string) => (err += t));
    if (head) {
      child.stdout.setEncoding('utf8').once('data', (t: string) => {
        out = t;
        child.stdout.destroy();
      });
    } else {
      child.stdout.setEncoding('utf8').on('data', (t: string) => (out += t));
    }
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error('check did not exit within 60 s'));
    }, 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, err, out });
    });
  });
}

const headOne = (args: string[]) => runCheck(args, { head: true });

test('check trace | head -1: a reader gone early ends nothing; the exit status is the verdict', async () => {
  const clean = await headOne([traceFile('clean', 20_000, false)]);
  expect(clean.out).toMatch(/^line 4: reconnect with cursor 1/);
  expect(clean.err).toBe('');
  expect(clean.code).toBe(0);
  const unsafe = await headOne([traceFile('unsafe', 20_000, true), '--json']);
  expect(unsafe.out).toMatch(/^\{"reconnects":\[/);
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

test('outside a clone, a corpus path the docs name is read from the package (check properties/corpus/…)', async () => {
  const elsewhere = mkdtempSync(join(tmpdir(), 'mcpr-check-'));
  const found = await runCheck(['properties/corpus/rule6-skip.jsonl', '--json'], {
    cwd: elsewhere,
  });
  expect(found.err).toBe('');
  expect(found.code).toBe(0);
  expect(JSON.parse(found.out).reconnects[0].code).toBe('skip');
  // Only the corpus is looked up there: a missing corpus file is still a clear error.
  const missing = await runCheck(['properties/corpus/no-such-trace.jsonl'], { cwd: elsewhere });
  expect(missing.code).toBe(2);
  expect(missing.err).toMatch(/^check: cannot read properties\/corpus\/no-such-trace\.jsonl/);
}, 60_000);
