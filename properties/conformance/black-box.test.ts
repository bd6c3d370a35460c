/**
 * Black-box mode (`conformance --url`) against a server the harness cannot reach into: a
 * hand-written Streamable HTTP server in plain Node (fixtures/plain-server.mjs, no MCP SDK),
 * started as a separate process, restarted and evicted through shell hooks, driven through the
 * language-neutral test tool contract (count, count_release, count_status). Its mutants show
 * that the mode catches what it should: a test that cannot fail proves nothing.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { RecordingClient } from '../../src/conformance/recording/recorder.js';
import type { ConformanceReport } from '../../src/conformance/rendering/render.js';
import { TOOL_INPUT_SCHEMAS } from '../../src/conformance/tool.js';
import { FIXTURES_DIR as FIXTURES, PlainServer } from './fixtures/plain-server-process.js';
import { runCli } from '../support/cli.js';

const ID_PATTERN = '^(?<stream>[^:]+):(?<seq>\\d+)$';

let dir: string;
const servers: PlainServer[] = [];

async function server(name: string, ...args: string[]): Promise<PlainServer> {
  const s = new PlainServer(dir, name);
  servers.push(s);
  await s.start('--keepalive-ms', '100', '--retention', '16', ...args);
  return s;
}

function verdicts(report: ConformanceReport): Record<string, string> {
  return Object.fromEntries(report.servers.map((c) => [c.scenario, c.verdict]));
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcpr-blackbox-'));
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await rm(dir, { recursive: true, force: true });
});

describe('conformance --url against a server in another process, not written with the SDK', () => {
  test('every scenario runs, restart and eviction through the hooks; JUnit and traces written', async () => {
    const s = await server('honest');
    const before = await s.info();
    const junit = join(dir, 'honest.xml');
    const traces = join(dir, 'traces');
    const r = await runCli([
      'conformance',
      '--url',
      s.url,
      '--name',
      'plain-server',
      '--restart-cmd',
      s.hook('restart'),
      '--evict-cmd',
      s.hook('evict'),
      '--keepalive-ms',
      '100',
      '--id-pattern',
      ID_PATTERN,
      '--junit',
      junit,
      '--traces',
      traces,
      '--json',
    ]);
    expect(r.err).not.toMatch(/Error:/);
    const report = JSON.parse(r.out) as ConformanceReport;
    // The restart hook really replaced the process (state lost), at the same URL.
    const after = await s.info();
    expect(after.pid).not.toBe(before.pid);
    expect(after.port).toBe(before.port);
    expect(verdicts(report)).toMatchObject({
      'within-window': 'honored',
      'after-eviction': 'rejected',
      'after-restart': 'rejected',
      'other-stream': 'honored',
      'other-session': 'rejected',
      'same-ms-burst': 'honored',
      'empty-resume-twice': 'honored',
      'reader-stall': 'honored',
      'stale-connection': 'honored',
    });
    const restart = report.servers.find((c) => c.scenario === 'after-restart')!;
    expect(restart.observed).toBe('404');
    for (const c of report.servers) {
      if (c.verdict === 'n/a') continue;
      expect(c.protocolVersion, c.scenario).toBe('2025-11-25');
      expect(c.oracle?.agrees, `${c.scenario}: ${c.oracle?.note ?? ''}`).toBe(true);
    }
    expect(r.code).toBe(0);
    const xml = await readFile(junit, 'utf8');
    expect(xml.match(/<testcase /g)?.length).toBe(report.servers.length);
    expect(xml).not.toContain('<failure');
    const files = await readdir(traces);
    expect(files).toContain('plain-server.within-window.jsonl');
    const check = await runCli([
      'check',
      join(traces, 'plain-server.after-eviction.jsonl'),
      '--id-pattern',
      ID_PATTERN,
      '--json',
    ]);
    expect(check.code, check.err).not.toBe(2);
    expect(JSON.parse(check.out).reconnects.at(-1).expected).toBe('resumption-failed');
  }, 120_000);

  test('a server that skips one message on replay is silent loss: exit 1, a JUnit failure', async () => {
    const s = await server('skips', '--mutant', 'replay-skips-one');
    const junit = join(dir, 'skips.xml');
    const r = await runCli([
      'conformance',
      '--url',
      s.url,
      '--only',
      'within-window,same-ms-burst',
      '--id-pattern',
      ID_PATTERN,
      '--junit',
      junit,
      '--json',
    ]);
    const report = JSON.parse(r.out) as ConformanceReport;
    expect(verdicts(report)).toEqual({
      'within-window': 'silent loss',
      'same-ms-burst': 'silent loss',
    });
    expect(report.servers[0]!.observed).toMatch(/lost A-\w+#4/);
    // The oracle sees the skipped id on the trace alone.
    expect(report.servers.every((c) => c.oracle?.agrees)).toBe(true);
    expect(r.code).toBe(1);
    expect(await readFile(junit, 'utf8')).toContain('<failure type="silent loss"');
    // --fail-on decides what fails the run.
    const lenient = await runCli([
      'conformance',
      '--url',
      s.url,
      '--only',
      'within-window',
      '--fail-on',
      'leak,hang',
    ]);
    expect(lenient.code).toBe(0);
  }, 60_000);

  test('a server that answers an evicted cursor 200 is silent loss', async () => {
    const s = await server('evicted-200', '--mutant', 'evicted-answers-200');
    const r = await runCli([
      'conformance',
      '--url',
      s.url,
      '--only',
      'after-eviction',
      '--evict-cmd',
      s.hook('evict'),
      '--id-pattern',
      ID_PATTERN,
      '--json',
    ]);
    const report = JSON.parse(r.out) as ConformanceReport;
    expect(verdicts(report)).toEqual({ 'after-eviction': 'silent loss' });
    expect(report.servers[0]!.oracle?.outcomes.at(-1)).toBe('resumption-failed');
    expect(r.code).toBe(1);
  }, 60_000);

  test('missing hooks are n/a naming the hook; a failing hook is an error; 2025-03-26 is spoken', async () => {
    const s = await server('bare');
    const r = await runCli([
      'conformance',
      '--url',
      s.url,
      '--only',
      'within-window,after-eviction,after-restart,reader-stall',
      '--protocol-version',
      '2025-03-26',
      '--json',
    ]);
    const report = JSON.parse(r.out) as ConformanceReport;
    const reason = (name: string) => report.servers.find((c) => c.scenario === name)?.reason;
    expect(reason('after-eviction')).toMatch(/--evict-cmd/);
    expect(reason('after-restart')).toMatch(/--restart-cmd/);
    expect(reason('reader-stall')).toMatch(/--keepalive-ms/);
    const within = report.servers.find((c) => c.scenario === 'within-window')!;
    expect(within.verdict).toBe('honored');
    expect(within.protocolVersion).toBe('2025-03-26');
    // No priming event before 2025-11-25: the first line after `open` is message 1.
    expect(within.trace[1]).toMatch(/"type":"event".*"kind":"1"/);

    const failing = await runCli([
      'conformance',
      '--url',
      s.url,
      '--only',
      'after-restart',
      '--restart-cmd',
      'echo no such service >&2; exit 3',
      '--json',
    ]);
    const cell = (JSON.parse(failing.out) as ConformanceReport).servers[0]!;
    expect(cell.verdict).toBe('error');
    expect(cell.observed).toMatch(/--restart-cmd exited 3: no such service/);
  }, 60_000);

  test('the plain server lists exactly the contract of docs/conformance.md', async () => {
    const s = await server('contract');
    const c = new RecordingClient(s.url, 2000);
    await c.initialize();
    const res = await fetch(s.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': c.sessionId!,
        'mcp-protocol-version': c.negotiatedVersion!,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    const body = (await res.json()) as {
      result: { tools: { name: string; inputSchema: unknown }[] };
    };
    const listed = Object.fromEntries(body.result.tools.map((t) => [t.name, t.inputSchema]));
    expect(listed).toEqual(TOOL_INPUT_SCHEMAS);
  });

  test('bad input exits 2 with one line', async () => {
    for (const [argv, message] of [
      [['--url', 'http://10.1.2.3:80/mcp'], /loopback/],
      [['--url', 'http://127.0.0.1:1/mcp'], /nothing accepts connections/],
      [['--url', 'http://127.0.0.1:1/mcp', '--adapter', 'x.js'], /not both/],
      [['--restart-cmd', 'true'], /--restart-cmd needs --url/],
      [['--fail-on', 'silent'], /unknown verdict "silent"/],
      [['--protocol-version', '2024-11-05'], /--protocol-version must be one of/],
      [['--adapter', join(FIXTURES, 'plain-server-ctl.mjs.missing')], /cannot load it/],
    ] as const) {
      const r = await runCli(['conformance', ...argv]);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.err).toMatch(message);
      expect(r.err.trim().split('\n')).toHaveLength(1);
    }
  }, 30_000);
});
