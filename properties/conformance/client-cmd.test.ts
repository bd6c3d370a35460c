/**
 * Any client, in any language (issue 27): `conformance --client-cmd CMD` runs CMD against the
 * kit's hostile servers (`serve`) and judges it from what it delivered, what it surfaced and
 * what the server saw. A right client (the Python standard-library example,
 * examples/contract-client.py) is honored or rightly rejected everywhere; each wrong client
 * (fixtures/naive-client.mjs, one bug per MODE) gets its own verdict; the SDK clients run
 * through the same path; `serve` reports what it saw a client do.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import type { ClientCell } from '../../src/conformance/rows/client-command.js';
import { HOSTILE_SCENARIOS } from '../../src/conformance/hostile-server.js';
import { runCli } from '../support/cli.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PYTHON_CLIENT = `python3 '${ROOT}examples/contract-client.py'`;
const NAIVE = `node '${ROOT}properties/conformance/fixtures/naive-client.mjs'`;

/** The cells of `conformance --client-cmd CMD --json` with `extra` options. */
async function clientCells(cmd: string, extra: string[]): Promise<ClientCell[]> {
  const r = await runCli(['conformance', '--client-cmd', cmd, ...extra, '--json']);
  expect(r.err, r.err).not.toMatch(/internal error/);
  return (JSON.parse(r.out) as { cells: ClientCell[] }).cells;
}

describe('conformance --client-cmd', () => {
  test('the Python example client: honored where the call can be delivered, rejected where it cannot', async () => {
    const cells = await clientCells(PYTHON_CLIENT, []);
    expect(cells.map((c) => c.scenario)).toEqual(HOSTILE_SCENARIOS.map((s) => s.name));
    for (const c of cells) {
      const s = HOSTILE_SCENARIOS.find((x) => x.name === c.scenario)!;
      expect(c.verdict, `${c.scenario}: ${c.observed}`).toBe(
        s.expect === 'deliver' ? 'honored' : 'rejected',
      );
      expect(c.fix).toBeUndefined();
    }
    // What the server saw: a resume from the cursor of message 5, and the WHATWG cursor after
    // an id-only block.
    const by = Object.fromEntries(cells.map((c) => [c.scenario, c]));
    expect(by['cut-resume']!.activity.cursors).toEqual(['c1-5']);
    expect(by['id-only-blocks']!.activity.cursors).toEqual(['c1-6']);
  }, 120_000);

  test.each([
    ['exit', 'cut-resume', 'dropped call'],
    // @ai-sdk/mcp 2.0.99 did this: a cut stream is never resumed and Node exits 13.
    ['orphan', 'cut-resume', 'dropped call'],
    ['wait', 'cut-resume', 'endless wait'],
    ['blind', 'skip', 'silent gap'],
    ['blind', 'cross-stream', 'leak'],
    ['alarm', 'keepalive-stall', 'false alarm'],
    ['storm', 'retry-storm', 'retry storm'],
  ])(
    'a client that does MODE=%s on %s: %s, with what to change',
    async (mode, scenario, verdict) => {
      const r = await runCli([
        'conformance',
        '--client-cmd',
        `MODE=${mode} ${NAIVE}`,
        '--client-name',
        `naive-${mode}`,
        '--only',
        scenario,
        '--client-timeout',
        '3000',
      ]);
      expect(r.code).toBe(1);
      const lines = r.out.split('\n');
      expect(lines[0]).toMatch(new RegExp(`^- naive-${mode} × ${scenario}: ${verdict}\\. `));
      expect(lines[1]).toMatch(/^ {2}fix: change the client: /);
    },
    60_000,
  );

  test('the SDK clients through the same path: bare v1 lets the skip through, guarded v1 rejects it', async () => {
    const r = await runCli(['conformance', '--sdk-clients', '--only', 'skip', '--json']);
    const cells = (JSON.parse(r.out) as { cells: ClientCell[] }).cells;
    const by = Object.fromEntries(cells.map((c) => [c.row, c]));
    expect(Object.keys(by)).toEqual([
      'sdk-client-v1',
      'sdk-client-v1+guard',
      'sdk-client-v2',
      'sdk-client-v2+guard',
    ]);
    expect(by['sdk-client-v1']!.verdict, by['sdk-client-v1']!.observed).toBe('silent gap');
    expect(by['sdk-client-v2']!.verdict, by['sdk-client-v2']!.observed).toBe('silent gap');
    expect(by['sdk-client-v1+guard']!.verdict).toBe('rejected');
    expect(by['sdk-client-v1+guard']!.surfaced).toMatch(/replay gap: expected event id 6, got 9/);
    expect(by['sdk-client-v2+guard']!.verdict).toBe('rejected');
  }, 120_000);

  test('bad input: one line, exit 2', async () => {
    const unknown = await runCli(['conformance', '--client-cmd', 'true', '--only', 'nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toMatch(/^conformance: unknown client scenario "nope" \(with --client-cmd/);
    const both = await runCli([
      'conformance',
      '--client-cmd',
      'true',
      '--url',
      'http://127.0.0.1:1/',
    ]);
    expect(both.code).toBe(2);
    const missing = await runCli(['conformance', '--client-cmd', 'true', '--only', 'honest']);
    expect(missing.code).toBe(1);
    expect(missing.out).toMatch(/: error\. the command never reached the server/);
  });
});

describe('serve', () => {
  test('--list names every scenario and the right client behaviour', async () => {
    const r = await runCli(['serve', '--list']);
    expect(r.code).toBe(0);
    for (const s of HOSTILE_SCENARIOS)
      expect(r.out).toContain(`${s.name}\n  server: ${s.does}\n  right client: ${s.right}`);
    const json = JSON.parse((await runCli(['serve', '--list', '--json'])).out) as {
      scenarios: unknown[];
    };
    expect(json.scenarios).toHaveLength(HOSTILE_SCENARIOS.length);
  });

  test('prints its URL, and on exit what it saw the client do', async () => {
    const cli = fileURLToPath(new URL('../../dist/src/cli.js', import.meta.url));
    const server = spawn(
      process.execPath,
      [cli, 'serve', '--scenario', 'skip', '--for', '4000', '--json'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    server.stdout.setEncoding('utf8');
    server.stdout.on('data', (c: string) => (out += c));
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no URL: ${out}`)), 10_000);
      server.stdout.on('data', () => {
        const m = /^(http:\/\/127\.0\.0\.1:\d+\/mcp)\n/.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      });
    });
    const client = spawn('python3', [`${ROOT}examples/contract-client.py`], {
      env: { ...process.env, MCP_URL: url },
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let said = '';
    client.stdout.setEncoding('utf8');
    client.stdout.on('data', (c: string) => (said += c));
    await new Promise((r) => client.on('close', r));
    expect(said).toMatch(/"error": "replay gap: expected c1-6, got c1-9"/);
    await new Promise((r) => server.on('close', r));
    const report = JSON.parse(out.split('\n')[1]!) as {
      scenario: string;
      activity: { calls: number; reconnects: number; cursors: string[] };
    };
    expect(report.scenario).toBe('skip');
    expect(report.activity).toMatchObject({ calls: 1, reconnects: 1, cursors: ['c1-5'] });
  }, 30_000);

  test('an unknown scenario is one line, exit 2', async () => {
    const r = await runCli(['serve', '--scenario', 'nope']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^serve: unknown --scenario "nope" \(one of honest, /);
  });
});
