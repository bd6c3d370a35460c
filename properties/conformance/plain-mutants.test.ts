/**
 * Bugs seen in real servers, reproduced as mutants of the hand-written plain server
 * (fixtures/plain-server.mjs), each judged through both routes a user has: `--url` (one server
 * process for the run, driven from outside) and `--adapter` (fixtures/plain-server-adapter.ts,
 * a fresh process per cell). Both routes must reach the same verdict:
 * - call B's notifications written to call A's stream: `leak`, not `hang` (issue 19, item 2);
 * - responses routed by JSON-RPC id across sessions: two sessions in flight get each other's
 *   results, `leak` (item 5); the harness's own control calls are not misrouted (item 6);
 * - the stream dropped once its result went to a dead connection: the resume gets 200 and
 *   nothing, `silent loss` (item 5);
 * - no sessions at all: a resume is `rejected`, "stateless: no session to resume", and what
 *   needs no reconnect still runs (item 3);
 * - events without ids: "not resumable" once for the row, not a loss per cell (item 7).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { FlatCell } from '../../src/conformance/rendering/render.js';
import { NOT_RESUMABLE } from '../../src/conformance/types.js';
import { runCli } from '../support/cli.js';

const run = promisify(execFile);
const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));
const CTL = join(FIXTURES, 'plain-server-ctl.mjs');
const ADAPTERS = join(FIXTURES, 'plain-server-adapter.ts');
const ID_PATTERN = '^(?<stream>[^:]+):(?<seq>\\d+)$';

let dir: string;
const states: string[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcpr-mutants-'));
});

afterAll(async () => {
  await Promise.all(
    states.map((s) =>
      run('node', [CTL, 'stop', '--state', s], { timeout: 15_000 }).catch(() => {}),
    ),
  );
  await rm(dir, { recursive: true, force: true });
});

/** A fresh plain server process (with `mutant`, if given); its URL. */
async function plainServer(mutant?: string): Promise<string> {
  const state = join(dir, `${mutant ?? 'honest'}-${states.length}.json`);
  states.push(state);
  const args = ['--keepalive-ms', '100', '--retention', '16'];
  await run(
    'node',
    [CTL, 'start', '--state', state, '--', ...args, ...(mutant ? ['--mutant', mutant] : [])],
    {
      timeout: 15_000,
    },
  );
  const { port } = JSON.parse(await readFile(state, 'utf8')) as { port: number };
  return `http://127.0.0.1:${port}/mcp`;
}

/** The cells of one `conformance --json` run, from the flat `cells` list. */
async function cells(argv: string[]): Promise<FlatCell[]> {
  const r = await runCli(['conformance', ...argv, '--json']);
  expect(r.err, r.err).not.toMatch(/Error:/);
  return (JSON.parse(r.out) as { cells: FlatCell[] }).cells;
}

/** The same scenarios through `--url` (a server of its own) and `--adapter` (a row). */
async function bothRoutes(mutant: string | undefined, scenarios: string[]) {
  const url = await plainServer(mutant);
  const viaUrl = await cells([
    '--url',
    url,
    '--keepalive-ms',
    '100',
    '--id-pattern',
    ID_PATTERN,
    '--only',
    scenarios.join(','),
  ]);
  const row = mutant ? `plain:${mutant}` : 'plain';
  const viaAdapter = await cells(['--adapter', ADAPTERS, '--only', [row, ...scenarios].join(',')]);
  return { viaUrl, viaAdapter };
}

function byScenario(list: FlatCell[]): Record<string, FlatCell> {
  return Object.fromEntries(list.map((c) => [c.scenario, c]));
}

describe('plain-server mutants through --url and --adapter', () => {
  test('the honest server: both new scenarios honored', async () => {
    const { viaUrl, viaAdapter } = await bothRoutes(undefined, [
      'two-sessions',
      'finished-while-away',
    ]);
    for (const list of [viaUrl, viaAdapter]) {
      for (const c of list) expect(c.verdict, `${c.scenario}: ${c.observed}`).toBe('honored');
      expect(list).toHaveLength(2);
    }
  }, 90_000);

  test("call B's notifications on call A's stream: other-stream is a leak, not a hang", async () => {
    const { viaUrl, viaAdapter } = await bothRoutes('notifications-first-stream', ['other-stream']);
    for (const list of [viaUrl, viaAdapter]) {
      const c = byScenario(list)['other-stream']!;
      expect(c.verdict, c.observed).toBe('leak');
      expect(c.observed).toMatch(/call B\S*: B\S*#1,B\S*#2,B\S*#3 arrived on call A\S*'s stream$/);
      // No reconnect happened: the oracle is not blamed.
      expect(c.oracleNote ?? '').not.toMatch(/oracle wrong/);
    }
  }, 90_000);

  test('responses routed by id across sessions: two-sessions is a leak; control calls stay on their session', async () => {
    const { viaUrl, viaAdapter } = await bothRoutes('responses-by-id', [
      'two-sessions',
      'within-window',
    ]);
    for (const list of [viaUrl, viaAdapter]) {
      const two = byScenario(list)['two-sessions']!;
      expect(two.verdict, two.observed).toBe('leak');
      expect(two.security).toBe(true);
      expect(two.observed).toMatch(/session 1: .*foreign B/);
      // The control session's request ids are its own: nothing of it lands on a call's stream.
      const within = byScenario(list)['within-window']!;
      expect(within.verdict, within.observed).toBe('honored');
    }
  }, 90_000);

  test('the stream dropped once its result went to a dead connection: 200 and nothing is silent loss', async () => {
    const { viaUrl, viaAdapter } = await bothRoutes('stream-deleted-on-send', [
      'finished-while-away',
      'within-window',
    ]);
    for (const list of [viaUrl, viaAdapter]) {
      const c = byScenario(list)['finished-while-away']!;
      expect(c.verdict, c.observed).toBe('silent loss');
      expect(c.observed).toMatch(/^200, 0\/4 owed arrived/);
      expect(byScenario(list)['within-window']!.verdict).toBe('honored');
    }
  }, 90_000);

  test('a server without sessions: resumes rejected as stateless, the rest runs', async () => {
    const { viaUrl, viaAdapter } = await bothRoutes('no-session-ids', [
      'within-window',
      'reader-stall',
      'two-sessions',
    ]);
    for (const list of [viaUrl, viaAdapter]) {
      const c = byScenario(list);
      expect(c['within-window']!.verdict, c['within-window']!.observed).toBe('rejected');
      expect(c['within-window']!.reason).toBe('stateless: no session to resume');
      expect(c['within-window']!.observed).toMatch(/^405: stateless: no session to resume$/);
      expect(c['reader-stall']!.verdict, c['reader-stall']!.observed).toBe('honored');
      expect(c['two-sessions']!.verdict, c['two-sessions']!.observed).toBe('honored');
    }
  }, 90_000);

  test('events without ids: not resumable, stated once for the row, no silent-loss cells', async () => {
    const scenarios = ['within-window', 'same-ms-burst', 'two-sessions'];
    const { viaUrl, viaAdapter } = await bothRoutes('no-event-ids', scenarios);
    for (const list of [viaUrl, viaAdapter]) {
      const c = byScenario(list);
      for (const s of ['within-window', 'same-ms-burst']) {
        expect(c[s]!.verdict, c[s]!.observed).toBe('n/a');
        expect(c[s]!.reason).toBe(NOT_RESUMABLE);
      }
      // What needs no cursor is still judged.
      expect(c['two-sessions']!.verdict).toBe('honored');
    }
    // The text report states the capability once for the row.
    const url = await plainServer('no-event-ids');
    const text = await runCli([
      'conformance',
      '--url',
      url,
      '--name',
      'noids',
      '--only',
      'within-window,same-ms-burst',
    ]);
    const lines = text.out.split('\n').filter((l) => l.includes(NOT_RESUMABLE));
    expect(lines).toEqual([`- noids: ${NOT_RESUMABLE}; not judged: within-window, same-ms-burst`]);
    expect(text.code).toBe(0);
  }, 90_000);
});
