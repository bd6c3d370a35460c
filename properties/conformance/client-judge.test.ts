/**
 * The `--client-cmd` judge on the clients it misjudged (issue 38), each test failing before its
 * fix: a proxy's OAuth discovery and probes counted as a retry storm; a progress-blind client
 * that accepted a skip called honored; the contract's texts read only as whole JSON strings;
 * "endless wait" without its bound; and the runner's bounds (a child that left the process
 * group, a job left running, output over 1 MiB, lines that are not JSON, a background job
 * holding stdout). Beside them, the judge across re-issued calls, with a mutant judge that
 * merges a re-issued call into the first (the test kills it).
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import {
  activityOf,
  type ClientActivity,
  type SeenRequest,
} from '../../src/conformance/hostile-activity.js';
import { hostileScenario } from '../../src/conformance/hostile-server.js';
import {
  CLIENT_FIX,
  judgeClient,
  readClientOutput,
  runClientCommand,
  STORM_PER_SECOND,
  type ClientCell,
  type ClientOutput,
} from '../../src/conformance/rows/client-command.js';
import { running } from '../../src/conformance/kill-after.js';
import { runCli } from '../support/cli.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const NAIVE = `node '${ROOT}properties/conformance/fixtures/naive-client.mjs'`;

/** `conformance --client-cmd 'MODE=mode naive' --only scenario`: its one cell. */
async function naiveCell(
  mode: string,
  scenario: string,
  extra: string[] = [],
): Promise<ClientCell> {
  const r = await runCli([
    'conformance',
    '--client-cmd',
    `MODE=${mode} ${NAIVE}`,
    '--only',
    scenario,
    ...extra,
    '--json',
  ]);
  expect(r.err, r.err).not.toMatch(/internal error/);
  const [cell] = (JSON.parse(r.out) as { cells: ClientCell[] }).cells;
  return cell!;
}

describe('the client judge, right on the clients it misjudged (issue 38)', () => {
  test('a proxy that does OAuth discovery and session-less probes at start, then one reconnect: no retry storm', async () => {
    const c = await naiveCell('probe', 'cut-resume');
    expect(c.verdict, c.observed).toBe('honored');
    expect(c.activity.otherPaths).toBe(6);
    expect(c.activity.maxGetsPerSecond).toBe(1);
  }, 60_000);

  test('storms are counted per session, on the MCP path, after the cut', () => {
    const get = (t: number, extra: Partial<SeenRequest> = {}): SeenRequest => ({
      t,
      method: 'GET',
      status: 200,
      cursor: 'c1-5',
      session: 's1',
      ...extra,
    });
    const before = Array.from({ length: 20 }, (_, i) => get(i, { cursor: null, session: 'p' }));
    const paths = Array.from({ length: 20 }, (_, i) => get(100 + i, { path: '/.well-known/x' }));
    const twoSessions = Array.from({ length: 2 * STORM_PER_SECOND }, (_, i) =>
      get(200 + i, { session: i % 2 === 0 ? 'a' : 'b' }),
    );
    const calm = activityOf([...before, ...paths, ...twoSessions], 100);
    expect(calm.maxGetsPerSecond).toBe(STORM_PER_SECOND);
    const storm = activityOf(
      Array.from({ length: STORM_PER_SECOND + 1 }, (_, i) => get(200 + i)),
      100,
    );
    expect(storm.maxGetsPerSecond).toBe(STORM_PER_SECOND + 1);
  });

  test('a progress-blind client that accepted the skip is a silent gap, judged from what it was served', async () => {
    const skip = await naiveCell('quiet', 'skip');
    expect(skip.verdict, skip.observed).toBe('silent gap');
    expect(skip.observed).toMatch(/progress-blind/);
    expect(skip.observed).toMatch(/c1's result after c1#5, 6\.\.8 never after its cursor c1-5/);
    const resumed = await naiveCell('quiet', 'cut-resume');
    expect(resumed.verdict, resumed.observed).toBe('honored');
  }, 60_000);

  test('the texts c<k>#<i> count anywhere in a line, as documented', async () => {
    expect(
      readClientOutput('{"msg": "progress c1#3 of 8"}\n{"text":"c1:result:8 done"}').delivered,
    ).toEqual(['c1#3', 'c1:result']);
    // An error line delivers nothing, whatever it names; a word that ends in #3 is no message.
    expect(readClientOutput('{"error": "lost c1#6"}\n{"m": "abc-c1#3"}').delivered).toEqual([]);
    const c = await naiveCell('prose', 'cut-resume');
    expect(c.verdict, c.observed).toBe('honored');
  }, 60_000);

  test('endless wait names its bound, and its fix fits a client that bounds its wait', async () => {
    const c = await naiveCell('wait', 'cut-resume', ['--client-timeout', '1500']);
    expect(c.verdict).toBe('endless wait');
    expect(c.observed).toMatch(/--client-timeout 1500 ms/);
    expect(c.fix).toBe(CLIENT_FIX['endless wait']);
    expect(c.fix).toMatch(/--client-timeout above that bound/);
  }, 60_000);
});

/** c1 delivers 1..4 and breaks; the client re-issues; c2 delivers 1, 4..8 and its result. */
const REISSUED: ClientOutput = readClientOutput(
  [
    ...['c1#1', 'c1#2', 'c1#3', 'c1#4', 'c2#1', 'c2#4', 'c2#5', 'c2#6', 'c2#7', 'c2#8'].map((m) =>
      JSON.stringify({ method: 'notifications/progress', params: { message: m } }),
    ),
    JSON.stringify({ result: { content: [{ type: 'text', text: 'c2:result:8' }] } }),
  ].join('\n'),
);
const TWO_CALLS: ClientActivity = { ...activityOf([], null), calls: 2, requests: 5 };

/**
 * A mutant judge (kept here, outside src): it takes a re-issued call for the same call, so what
 * c1 delivered fills c2's gaps (c2#2 and c2#3 look delivered).
 */
function mergingJudge(...args: Parameters<typeof judgeClient>): ReturnType<typeof judgeClient> {
  const [scenario, output, activity, ...rest] = args;
  const last = `c${activity.calls}`;
  const merged = output.delivered.map((d) => d.replace(/^c\d+/, last));
  return judgeClient(scenario, { ...output, delivered: merged }, activity, ...rest);
}

describe('the client judge across re-issued calls (issue 38)', () => {
  const scenario = hostileScenario('cut-resume')!;

  test('c2#2 and c2#3 never reached the application: a silent gap (right before issue 38 too), and the merging mutant is killed', () => {
    const real = judgeClient(scenario, REISSUED, TWO_CALLS, false, 0);
    expect(real.verdict).toBe('silent gap');
    expect(real.observed).toMatch(/^c2#4 after c2#1, 2\.\.3 never/);
    expect(mergingJudge(scenario, REISSUED, TWO_CALLS, false, 0).verdict).toBe('honored');
  });

  test('the same through a real client that re-issues the call', async () => {
    const c = await naiveCell('reissue', 'cut-resume');
    expect(c.activity.calls).toBe(2);
    expect(c.verdict, c.observed).toBe('silent gap');
    expect(c.observed).toMatch(/c2#4 after c2#1, 2\.\.3 never/);
  }, 60_000);
});

describe('--client-cmd bounds (issue 38)', () => {
  const honest = hostileScenario('honest')!;

  test('a child that left the process group and holds stdout: the run ends at the bound, and the child is killed', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mcpr-setsid-'));
    const pidFile = join(dir, 'pid');
    // The child outlives any test timeout unless the kit kills it; before the fix the kit
    // waited for it (its stdout) to close.
    const cmd = `setsid sh -c 'echo $$ > ${pidFile}; exec sleep 6001' & sleep 6001`;
    const cell = await runClientCommand(cmd, honest, { timeoutMs: 1000 });
    expect(cell.verdict).toBe('error');
    const pid = Number(await readFile(pidFile, 'utf8'));
    expect(running(pid)).toBe(false);
  }, 20_000);

  test('a detached child is not left running after a run that ended by itself', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mcpr-detached-'));
    const pidFile = join(dir, 'pid');
    const cmd = `setsid sh -c 'echo $$ > ${pidFile}; exec sleep 6002' > /dev/null 2>&1 & sleep 0.2; exit 0`;
    await runClientCommand(cmd, honest, { timeoutMs: 10_000 });
    const pid = Number(await readFile(pidFile, 'utf8'));
    expect(running(pid)).toBe(false);
  }, 20_000);

  test('a complete run whose background job holds stdout is judged on what it did, not an endless wait', async () => {
    const cell = await runClientCommand(`sleep 6003 & MODE=exit ${NAIVE}`, honest, {
      timeoutMs: 8000,
    });
    expect(cell.verdict, cell.observed).toBe('honored');
    expect(cell.exit).toBe(0);
  }, 30_000);

  test('output over 1 MiB is a clear error, not a dropped call', async () => {
    const c = await naiveCell('flood', 'honest');
    expect(c.verdict).toBe('error');
    expect(c.observed).toMatch(/printed more than 1048576 bytes on stdout/);
  }, 60_000);

  test('a line that is not JSON is shown', async () => {
    const c = await naiveCell('junk', 'honest');
    expect(c.verdict).toBe('honored');
    expect(c.observed).toMatch(
      /1 line\(s\) not JSON, the first: "starting the client \(not JSON\)"/,
    );
  }, 60_000);

  test('no process of a run survives it (checked with ps)', () => {
    const out = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' });
    expect(out).not.toMatch(/sleep 600[123]/);
  });
});
