/**
 * Servers the kit misjudged (issue 38), each a variant of the plain server (fixtures/
 * plain-server.mjs, no MCP SDK) in a process of its own, through `--url`; each test failed
 * before its fix:
 * - progress written to the session's standalone stream: reader-stall said "silent loss" (with
 *   a fix line about Last-Event-ID, though nothing reconnected) where every other cell of the
 *   same server said "leak";
 * - an unknown session answered 400: after-restart passed it as "rejected", yet only a 404 makes
 *   a client re-initialize (now a finding, with its line);
 * - a `--restart-cmd` that restarted nothing (an old process still serving the port): a verdict
 *   on a restart that never was (now an error saying so).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { SERVER_FIX, type FlatCell } from '../../src/conformance/rendering/render.js';
import { NOT_RESUMABLE } from '../../src/conformance/types.js';
import { runCli } from '../support/cli.js';
import { PlainServer } from './fixtures/plain-server-process.js';

const ID_PATTERN = '^(?<stream>[^:]+):(?<seq>\\d+)$';
let dir: string;
const servers: PlainServer[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcpr-kit-misjudged-'));
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await rm(dir, { recursive: true, force: true });
});

async function server(name: string, ...args: string[]): Promise<PlainServer> {
  const s = new PlainServer(dir, name);
  servers.push(s);
  await s.start('--keepalive-ms', '100', ...args);
  return s;
}

/** `conformance --url` with `extra` options: the flat cells by scenario, and the text. */
async function run(s: PlainServer, extra: string[]) {
  const args = ['conformance', '--url', s.url, '--id-pattern', ID_PATTERN, ...extra];
  const json = await runCli([...args, '--json']);
  const cells = (JSON.parse(json.out) as { cells: FlatCell[] }).cells;
  return {
    by: Object.fromEntries(cells.map((c) => [c.scenario, c])),
    text: (await runCli(args)).out,
  };
}

describe('the kit, right on the servers it misjudged (issue 38)', () => {
  test('progress on the standalone stream: one verdict, leak, in reader-stall as in the others', async () => {
    const s = await server('standalone', '--mutant', 'standalone-progress');
    const { by } = await run(s, [
      '--keepalive-ms',
      '100',
      '--only',
      'within-window,reader-stall,two-sessions',
    ]);
    for (const name of ['within-window', 'reader-stall', 'two-sessions']) {
      const c = by[name]!;
      expect(c.verdict, `${name}: ${c.observed}`).toBe('leak');
      expect(c.observed).toMatch(/arrived on standalone stream of session 1/);
      expect(c.fix).toBe(SERVER_FIX.leak);
    }
  }, 120_000);

  test('an unknown session answered 400 after a restart: a finding, with its line', async () => {
    const s = await server('400', '--mutant', 'unknown-session-400');
    const { by, text } = await run(s, [
      '--restart-cmd',
      s.hook('restart'),
      '--only',
      'after-restart',
    ]);
    const c = by['after-restart']!;
    expect(c.verdict, c.observed).toBe('rejected');
    expect(c.finding).toMatch(
      /answered 400 \(ping\), not 404: only a 404 makes a client re-initialize/,
    );
    expect(text).toMatch(
      /^finding \(url .+ × after-restart\): the session from before the restart was answered 400/m,
    );
  }, 120_000);

  test('an unknown session answered 400, without any hook: a finding in other-session', async () => {
    const s = await server('400b', '--mutant', 'unknown-session-400');
    const { by } = await run(s, ['--only', 'other-session']);
    const c = by['other-session']!;
    expect(c.verdict, c.observed).toBe('rejected');
    expect(c.finding).toMatch(
      /^a session the server never issued was answered 400 \(ping\), not 404: only a 404 makes a client re-initialize/,
    );
  }, 120_000);

  test('the honest server after a real restart: 404, no finding', async () => {
    const s = await server('honest');
    const { by } = await run(s, ['--restart-cmd', s.hook('restart'), '--only', 'after-restart']);
    const c = by['after-restart']!;
    expect(c.verdict, c.observed).toBe('rejected');
    expect(c.observed).toBe('404');
    expect(c.finding).toBeUndefined();
  }, 120_000);

  test('a --restart-cmd that restarted nothing: an error saying so, not a verdict', async () => {
    const s = await server('stale');
    const { by } = await run(s, ['--restart-cmd', 'true', '--only', 'after-restart']);
    const c = by['after-restart']!;
    expect(c.verdict).toBe('error');
    expect(c.observed).toMatch(
      /the restart did not happen: after it, call A-\w+ still reports 3 message\(s\) emitted/,
    );
  }, 120_000);

  test("the harness's own standalone GET never makes a cell show a 409 (events without ids: n/a)", async () => {
    const s = await server('noids', '--mutant', 'no-event-ids', '--one-standalone');
    const { by } = await run(s, ['--only', 'within-window,same-ms-burst']);
    for (const name of ['within-window', 'same-ms-burst']) {
      const c = by[name]!;
      expect(c.verdict, `${name}: ${c.observed}`).toBe('n/a');
      expect(c.reason).toBe(NOT_RESUMABLE);
      expect(c.observed).not.toMatch(/409/);
    }
  }, 120_000);

  test('--keepalive-ms auto sizes reader-stall from the keepalive the server really sends', async () => {
    const s = await server('ka');
    const args = ['conformance', '--url', s.url, '--id-pattern', ID_PATTERN];
    const r = await runCli([...args, '--keepalive-ms', 'auto', '--only', 'reader-stall', '--json']);
    expect(r.err).toMatch(/^conformance: keepalive measured: \d+ ms$/m);
    const [c] = (JSON.parse(r.out) as { cells: FlatCell[] }).cells;
    expect(c!.verdict, c!.observed).toBe('honored');
  }, 120_000);

  test('--keepalive-ms auto against a server without keepalives: reader-stall is n/a, saying so', async () => {
    const s = new PlainServer(dir, 'no-ka');
    servers.push(s);
    await s.start('--keepalive-ms', '3600000');
    const args = ['conformance', '--url', s.url, '--id-pattern', ID_PATTERN];
    const r = await runCli([...args, '--keepalive-ms', 'auto', '--only', 'reader-stall', '--json']);
    const [c] = (JSON.parse(r.out) as { cells: FlatCell[] }).cells;
    expect(c!.verdict).toBe('n/a');
    expect(c!.reason).toMatch(
      /^--keepalive-ms auto: no two keepalives on a quiet call stream within 20000 ms/,
    );
  }, 120_000);
});
