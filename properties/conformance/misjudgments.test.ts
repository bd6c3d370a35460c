/**
 * Servers the kit had never seen, and misjudged (issue 27): each is a variant of the
 * hand-written plain server (fixtures/plain-server.mjs, no MCP SDK) run through `--url`, as a
 * new user would. Each test failed before its fix:
 * 1. reader-stall with a keepalive above 5 s: a correct server was "silent loss" (the read after
 *    the stall was capped at 5 s, the result is due a keepalive later);
 * 2. a server that writes every message to every session's standalone stream: "hang", and the
 *    result written to another session never reported (now a leak, a security finding);
 * 3. a stateless server whose call dies with its connection: "hang" (now rejected, stateless);
 * 4. empty-resume-twice against a stateless server: "error: control channel … initialize
 *    failed", a request that followed the kit's own cut (now rejected, stateless);
 * 6. a server without the contract tools: "the stream ended before message 3" (now the
 *    server's own answer, and how to serve the tools).
 * (5, `check --strict` and a dropped call, is properties/trace/dropped-call.test.ts.)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';
import { STATELESS } from '../../src/conformance/rows/matrix.js';
import type { FlatCell } from '../../src/conformance/rendering/render.js';
import { NOT_RESUMABLE_2026 } from '../../src/conformance/types.js';
import { runCli } from '../support/cli.js';

const SERVER = fileURLToPath(new URL('./fixtures/plain-server.mjs', import.meta.url));
const ID_PATTERN = '^(?<stream>[^:]+):(?<seq>\\d+)$';
const children: ChildProcess[] = [];

afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
});

/** A plain server process with `args`; its URL. */
function plainServer(...args: string[]): Promise<string> {
  const child = spawn(process.execPath, [SERVER, '--port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('plain-server: no listening line')), 10_000);
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      out += chunk;
      const m = /^listening (\S+)$/m.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
  });
}

/** The cells of `conformance --url URL --only SCENARIOS --json`, by scenario. */
async function cells(
  url: string,
  scenarios: string[],
  keepAliveMs = 100,
): Promise<Record<string, FlatCell>> {
  const r = await runCli([
    'conformance',
    '--url',
    url,
    '--keepalive-ms',
    String(keepAliveMs),
    '--id-pattern',
    ID_PATTERN,
    '--only',
    scenarios.join(','),
    '--json',
  ]);
  const list = (JSON.parse(r.out) as { cells: FlatCell[] }).cells;
  return Object.fromEntries(list.map((c) => [c.scenario, c]));
}

describe('servers the kit had never seen, judged right (issue 27)', () => {
  test('1: reader-stall against a correct server with 5.2 s keepalives is honored', async () => {
    const url = await plainServer('--keepalive-ms', '5200');
    const c = (await cells(url, ['reader-stall'], 5200))['reader-stall']!;
    expect(c.verdict, c.observed).toBe('honored');
  }, 120_000);

  test("2: every message written to every session's standalone stream is a leak, not a hang", async () => {
    const url = await plainServer('--keepalive-ms', '100', '--mutant', 'broadcast');
    const c = await cells(url, ['within-window', 'two-sessions', 'reader-stall']);
    for (const s of ['within-window', 'two-sessions', 'reader-stall']) {
      expect(c[s]!.verdict, `${s}: ${c[s]!.observed}`).toBe('leak');
      expect(c[s]!.security).toBe(true);
      expect(c[s]!.observed).toMatch(/arrived on the witness session's standalone stream/);
    }
  }, 120_000);

  test('3: a stateless server whose call dies with its connection is rejected (stateless), not a hang', async () => {
    const url = await plainServer('--keepalive-ms', '100', '--mutant', 'stateless-cancel');
    const c = await cells(url, ['within-window', 'finished-while-away', 'two-sessions']);
    for (const s of ['within-window', 'finished-while-away']) {
      expect(c[s]!.verdict, `${s}: ${c[s]!.observed}`).toBe('rejected');
      expect(c[s]!.reason).toBe(STATELESS);
      expect(c[s]!.observed).toMatch(/^the call died with its connection/);
    }
    expect(c['two-sessions']!.verdict).toBe('honored');
  }, 120_000);

  test('4: empty-resume-twice against a stateless server is rejected (stateless), not a control-channel error', async () => {
    const url = await plainServer('--keepalive-ms', '100', '--mutant', 'no-session-ids');
    const c = (await cells(url, ['empty-resume-twice']))['empty-resume-twice']!;
    expect(c.verdict, c.observed).toBe('rejected');
    expect(c.reason).toBe(STATELESS);
  }, 120_000);

  test('a 2026-07-28 server: one "not resumable: 2026-07-28" line for the row, not a wall of errors', async () => {
    const url = await plainServer('--keepalive-ms', '100', '--mutant', 'v2026');
    const c = await cells(url, ['within-window', 'two-sessions', 'empty-resume-twice']);
    for (const cell of Object.values(c)) {
      expect(cell.verdict, cell.observed).toBe('n/a');
      expect(cell.reason).toBe(NOT_RESUMABLE_2026);
    }
    const text = await runCli([
      'conformance',
      '--url',
      url,
      '--name',
      'new',
      '--only',
      'within-window,two-sessions',
    ]);
    const lines = text.out.split('\n').filter((l) => l.startsWith('- new'));
    expect(lines).toEqual([
      `- new: ${NOT_RESUMABLE_2026}; not judged: within-window, two-sessions`,
    ]);
    expect(text.code).toBe(0);
  }, 120_000);

  test('6: a server without the contract tools: the cell shows its answer and how to serve the tools', async () => {
    const url = await plainServer('--keepalive-ms', '100', '--mutant', 'no-contract-tools');
    const c = (await cells(url, ['within-window']))['within-window']!;
    expect(c.verdict).toBe('error');
    expect(c.observed).toMatch(/Tool count not found/);
    expect(c.observed).toMatch(/registerContractTools\(server\)/);
  }, 120_000);
});
