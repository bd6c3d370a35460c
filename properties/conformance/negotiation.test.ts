/**
 * Protocol negotiation and `--adapter FILE`: the harness speaks the version the server
 * answered in `initialize` in every later header. A server pinned to 2025-03-26 refuses any
 * other header value, so a harness that kept sending its own version (the mutant below) gets
 * 400 on every request after `initialize`, and the cells say `error`, not `hang`.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { runCell } from '../../src/conformance/rows/matrix.js';
import { RecordingClient } from '../../src/conformance/recording/recorder.js';
import type { ConformanceReport } from '../../src/conformance/rendering/render.js';
import { resumeWithinWindow } from '../../src/conformance/scenarios/index.js';
import { HoldControl } from '../../src/conformance/tool.js';
import { runCli } from '../support/cli.js';
import { pinned } from './fixtures/pinned-adapters.js';

const MODULE = fileURLToPath(new URL('./fixtures/pinned-adapters.ts', import.meta.url));

describe('protocol negotiation', () => {
  test('--adapter runs every exported row; the pinned row speaks 2025-03-26 throughout', async () => {
    const r = await runCli([
      'conformance',
      '--adapter',
      MODULE,
      '--only',
      'within-window,after-restart,stale-connection',
      '--json',
    ]);
    expect(r.code, r.err).toBe(0);
    const report = JSON.parse(r.out) as ConformanceReport;
    const rows = [...new Set(report.servers.map((c) => c.implementation))];
    expect(rows).toEqual(['sdk-v1@2025-03-26', 'sdk-v1@negotiated']);
    for (const c of report.servers) {
      expect(c.verdict, `${c.implementation} × ${c.scenario}: ${c.observed}`).toMatch(
        /^(honored|rejected)$/,
      );
      expect(c.protocolVersion).toBe(
        c.implementation === 'sdk-v1@2025-03-26' ? '2025-03-26' : '2025-11-25',
      );
    }
    // Before 2025-11-25 the SDK writes no priming event: the first event is message 1.
    const pinnedWithin = report.servers.find(
      (c) => c.implementation === 'sdk-v1@2025-03-26' && c.scenario === 'within-window',
    )!;
    expect(pinnedWithin.trace.find((l) => l.includes('"type":"event"'))).toMatch(/"kind":"1"/);
    const text = await runCli(['conformance', '--adapter', MODULE, '--only', 'within-window']);
    expect(text.out).toMatch(/sdk-v1@2025-03-26\s+2025-03-26\s+honored/);
  }, 60_000);

  test('the pin is strict: a request naming another version is refused 400', async () => {
    const adapter = pinned.make();
    const url = await adapter.start({ control: new HoldControl(), keepAliveMs: 100, retention: 8 });
    try {
      const c = new RecordingClient(url, 2000);
      await c.initialize();
      expect(c.negotiatedVersion).toBe('2025-03-26');
      const res = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': c.sessionId!,
          'mcp-protocol-version': '2025-11-25',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
      });
      expect(res.status).toBe(400);
      expect(await res.text()).toMatch(/Protocol version mismatch/);
    } finally {
      await adapter.stop();
    }
  });

  test('mutant: a harness that ignores the negotiated version gets error cells, not hangs', async () => {
    // The mutant overwrites the negotiated version with its own after initialize.
    const proto = RecordingClient.prototype as unknown as { initialize(): Promise<void> };
    const original = proto.initialize;
    proto.initialize = async function (this: RecordingClient) {
      await original.call(this);
      this.negotiatedVersion = '2025-11-25';
    };
    try {
      // A hang would last the cell's whole bound (20 s here); the error comes with the 400.
      // Half the bound tells them apart on a loaded 2-core machine too (as in verdicts.test.ts;
      // the old 5 s measured the machine's load as much as the verdict).
      const cellTimeoutMs = 20_000;
      const cell = await runCell(pinned, resumeWithinWindow, { timeoutMs: 1000, cellTimeoutMs });
      expect(cell.verdict).toBe('error');
      expect(cell.observed).toMatch(/400.*Protocol version mismatch/);
      expect(cell.ms).toBeLessThan(cellTimeoutMs / 2);
    } finally {
      proto.initialize = original;
    }
  });

  test('a server that answers a version the harness does not speak is an error cell', async () => {
    const adapter = pinned.make();
    (adapter as unknown as { spec: { pinProtocolVersion: string } }).spec.pinProtocolVersion =
      '2024-11-05';
    const cell = await runCell({ name: 'old', make: () => adapter }, resumeWithinWindow);
    expect(cell.verdict).toBe('error');
    expect(cell.observed).toMatch(/negotiated protocol version 2024-11-05, which the harness/);
  });
});
