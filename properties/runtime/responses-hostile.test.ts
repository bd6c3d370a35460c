/**
 * What counts as a call's response, against a hostile server, through `Client.callTool` of SDK
 * 1.32.2 and 2.4.0 (issue 37, R3-6 to R3-8). The call's stream carries two notifications, then
 * a stray message, then breaks; the resume skips (its first event is 5). A guard that takes the
 * stray message for the call's response, or the server's ids for its own, leaves the call
 * waiting for its timeout; the guard ends it with -32030 (`skip`) instead.
 * - R3-6: ids that start with the guard's settlement prefix are the server's, not the guard's.
 * - R3-7: a response counts only for its own request id, under the event type the SDK reads.
 * - R3-8: the response check reads JSON as `JSON.parse` does (`"\u0069d"` is the key `id`).
 * The assertion is which error the call got, never when: the SDK's own timeout (8 s) is the
 * mutant's symptom.
 */
import { afterEach, describe, expect, test } from 'vitest';
import {
  continuityGuard,
  idReaderFromPattern,
  inspectGuard,
  RESUMPTION_ERROR_CODE,
  resumptionFailureOf,
  type ContinuityGuardOptions,
  type StreamResumptionError,
} from '../../src/runtime/index.js';
import { callServer, type CallScenario, type CallServer } from './call-server.js';
import { callTool } from './sdk-call.js';
import { SDK_KINDS, type SdkKind } from './sdk-clients.js';

const TIMEOUT_MS = 8_000;

const running: CallServer[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) await r.close();
});

async function run(
  kind: SdkKind,
  scenario: CallScenario,
  options: ContinuityGuardOptions = {},
): Promise<{ error: unknown; result: unknown; failures: StreamResumptionError[]; s: CallServer }> {
  const s = await callServer(scenario);
  running.push(s);
  const failures: StreamResumptionError[] = [];
  const f = continuityGuard(fetch, {
    proofTimeoutMs: 2_000,
    onFailure: (e) => failures.push(e),
    ...options,
  });
  const r = await callTool(kind, s.url, f, { timeoutMs: TIMEOUT_MS });
  return { error: r.error, result: r.result, failures, s };
}

/** A stray message's SSE text: event 3, `data` as JSON, under `event` when given. */
function stray(data: unknown, event?: string): string {
  return `id: 3\n${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`;
}

const STRAYS: { what: string; extra: (callId: unknown) => string }[] = [
  {
    what: 'a result for another id (999)',
    extra: () => stray({ jsonrpc: '2.0', id: 999, result: { content: [] } }),
  },
  {
    what: 'an error for another id (999)',
    extra: () => stray({ jsonrpc: '2.0', id: 999, error: { code: -1, message: 'no' } }),
  },
  {
    what: 'an error with id null',
    extra: () => stray({ jsonrpc: '2.0', id: null, error: { code: -1, message: 'no' } }),
  },
  {
    what: "the call's own result under `event: other`",
    extra: (id) => stray({ jsonrpc: '2.0', id, result: { content: [] } }, 'other'),
  },
];

describe.each(SDK_KINDS)('SDK %s Client.callTool against a hostile server', (kind: SdkKind) => {
  test.each(STRAYS)(
    'R3-7: $what is not the call’s response: the skip after it ends the call with -32030',
    async ({ extra }) => {
      const { error, failures } = await run(kind, { resume: 'skip', ending: 'destroy', extra });
      expect((error as { code?: unknown }).code, String(error)).toBe(RESUMPTION_ERROR_CODE);
      expect(resumptionFailureOf(error)).toMatchObject({ code: 'skip' });
      expect(failures.map((e) => e.code)).toEqual(['skip']);
    },
  );

  test('R3-7: with clientResumes: false, a stray response does not leave the call waiting', async () => {
    const { error } = await run(
      kind,
      { resume: 'skip', ending: 'end', extra: STRAYS[0]!.extra },
      { clientResumes: false },
    );
    expect((error as { code?: unknown }).code, String(error)).toBe(RESUMPTION_ERROR_CODE);
  });

  test("R3-6: the server's ids that start with the guard's prefix switch nothing off", async () => {
    const { error, failures, s } = await run(
      kind,
      { resume: 'skip', ending: 'destroy', idOf: (n) => `mcpr-call-ended-${n}` },
      { readId: idReaderFromPattern(/^mcpr-call-ended-(?<seq>\d+)$/) },
    );
    expect((error as { code?: unknown }).code, String(error)).toBe(RESUMPTION_ERROR_CODE);
    expect(failures.map((e) => e.code)).toEqual(['skip']);
    // The resume went out, named by the server's own id.
    expect(s.seen.some((r) => r.lastEventId === 'mcpr-call-ended-2')).toBe(true);
  });

  test('R3-8: a response whose key is written "\\u0069d" completes the call: no false failure', async () => {
    const failures: StreamResumptionError[] = [];
    const s = await callServer({
      resume: 'skip',
      ending: 'end',
      extra: (id) =>
        `id: 3\ndata: ${JSON.stringify({ jsonrpc: '2.0', id, result: { content: [] } }).replace(
          '"id":',
          '"\\u0069d":',
        )}\n\n`,
    });
    running.push(s);
    const f = continuityGuard(fetch, {
      clientResumes: false,
      onFailure: (e) => failures.push(e),
    });
    const r = await callTool(kind, s.url, f, { timeoutMs: TIMEOUT_MS });
    expect(r.error, String(r.error)).toBeUndefined();
    expect(failures.map((e) => e.message)).toEqual([]);
    expect(inspectGuard(f)).toMatchObject({ failed: 0, owed: 0, pending: 0 });
  });
});
