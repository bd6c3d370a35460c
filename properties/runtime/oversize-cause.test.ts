/**
 * A result larger than `maxEventBytes` (issue 38: a 9 MiB result against the default 8 MiB):
 * the guard gives the event up unread, and the call must fail naming that cause. It failed as
 * "no response to the reconnect", though the server had answered every resume.
 */
import { afterEach, describe, expect, test } from 'vitest';
import {
  continuityGuard,
  resumptionFailureOf,
  StreamResumptionError,
} from '../../src/runtime/index.js';
import { callServer, type CallServer } from './call-server.js';
import { callTool } from './sdk-call.js';
import { SDK_KINDS } from './sdk-clients.js';

const running: CallServer[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) await r.close();
});

describe.each(SDK_KINDS)('SDK %s: a resumed result over maxEventBytes', (kind) => {
  test('the call fails naming maxEventBytes, not "no response"', async () => {
    const s = await callServer({ resume: 'oversize' });
    running.push(s);
    const failures: StreamResumptionError[] = [];
    const g = continuityGuard(fetch, {
      proofTimeoutMs: 1000,
      maxEventBytes: 4096,
      onFailure: (e) => failures.push(e),
    });
    const r = await callTool(kind, s.url, g, { timeoutMs: 30_000 });
    const resumes = s.seen.filter((x) => x.lastEventId !== undefined).length;
    const failure = resumptionFailureOf(r.error);
    console.log(
      `[oversize] ${kind}: ${resumes} resume(s) answered; the call got: ${String(r.error)}`,
    );
    expect(failure, `the call got ${String(r.error)}`).toBeInstanceOf(StreamResumptionError);
    expect(failure!.message).toMatch(/larger than maxEventBytes \(4096 bytes\)/);
    expect(failure!.message).not.toMatch(/no response to the reconnect/);
    expect(failure!.code).toBe('unproven');
  });
});
