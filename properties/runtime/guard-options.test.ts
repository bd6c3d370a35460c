/**
 * The guard's options (src/runtime/guard-options.ts): the defaults docs/runtime.md states, and
 * each bound refused with a one-line error that names the option, its bound and the value, at
 * the bound itself too (a bound of `>= 1` accepts 1).
 */
import { describe, expect, test } from 'vitest';
import { configOf } from '../../src/runtime/guard-options.js';
import { continuityGuard } from '../../src/runtime/index.js';

describe('configOf', () => {
  test('the defaults are the documented ones', () => {
    expect(configOf({})).toEqual({
      idleTimeoutMs: 0,
      idleClock: 'network',
      proofTimeoutMs: 10_000,
      firstHeadersTimeoutMs: 60_000,
      minRetryMs: 250,
      maxRetryMs: 10_000,
      maxStreams: 10_000,
      maxEventBytes: 8 * 1024 * 1024,
      enforce: true,
      endCalls: 'respond',
      clientResumes: true,
    });
  });

  test('maxRetryMs follows the proof budget by default (at least minRetryMs, at most 60 s)', () => {
    expect(configOf({ proofTimeoutMs: 2_000 }).maxRetryMs).toBe(2_000);
    expect(configOf({ proofTimeoutMs: 100 }).maxRetryMs).toBe(250);
    expect(configOf({ proofTimeoutMs: 120_000 }).maxRetryMs).toBe(60_000);
    expect(configOf({ proofTimeoutMs: 2_000, maxRetryMs: 30_000 }).maxRetryMs).toBe(30_000);
  });

  test('every option given is kept as given', () => {
    const given = {
      idleTimeoutMs: 5,
      idleClock: 'wall' as const,
      proofTimeoutMs: 7,
      firstHeadersTimeoutMs: 9,
      minRetryMs: 3,
      maxRetryMs: 4,
      maxStreams: 2,
      maxEventBytes: 11,
      enforce: false,
      endCalls: 'error' as const,
      clientResumes: false,
    };
    expect(configOf(given)).toEqual(given);
  });

  test('each bound accepts its least value', () => {
    expect(
      configOf({
        idleTimeoutMs: 0,
        proofTimeoutMs: 1,
        firstHeadersTimeoutMs: 0,
        minRetryMs: 0,
        maxRetryMs: 0,
        maxStreams: 1,
        maxEventBytes: 1,
      }),
    ).toMatchObject({ proofTimeoutMs: 1, maxStreams: 1, maxRetryMs: 0 });
    expect(configOf({ minRetryMs: 2 ** 31 - 1, maxRetryMs: 2 ** 31 - 1 }).maxRetryMs).toBe(
      2 ** 31 - 1,
    );
  });

  test.each([
    [{ idleTimeoutMs: -1 }, 'continuityGuard: idleTimeoutMs must be a number >= 0, got -1'],
    [{ proofTimeoutMs: 0 }, 'continuityGuard: proofTimeoutMs must be a number >= 1, got 0'],
    [
      { responseTimeoutMs: 10_000 } as never,
      "continuityGuard: responseTimeoutMs was removed: the proof budget (proofTimeoutMs) bounds a reconnect's headers too",
    ],
    [
      { firstHeadersTimeoutMs: -1 },
      'continuityGuard: firstHeadersTimeoutMs must be a number >= 0, got -1',
    ],
    [{ minRetryMs: -1 }, 'continuityGuard: minRetryMs must be a number >= 0, got -1'],
    [
      { minRetryMs: 100, maxRetryMs: 99 },
      'continuityGuard: maxRetryMs must be a number >= 100, got 99',
    ],
    [{ maxRetryMs: 2 ** 31 }, 'continuityGuard: maxRetryMs must be at most 2^31-1, got 2147483648'],
    [{ maxStreams: 0 }, 'continuityGuard: maxStreams must be a number >= 1, got 0'],
    [{ maxEventBytes: 0 }, 'continuityGuard: maxEventBytes must be a number >= 1, got 0'],
    [
      { proofTimeoutMs: Number.NaN },
      'continuityGuard: proofTimeoutMs must be a number >= 1, got NaN',
    ],
    [
      { maxStreams: Number.POSITIVE_INFINITY },
      'continuityGuard: maxStreams must be a number >= 1, got Infinity',
    ],
    [
      { endCalls: 'reject' as 'error' },
      `continuityGuard: endCalls must be 'respond' or 'error', got "reject"`,
    ],
  ])('%j is refused: %s', (options, message) => {
    expect(() => configOf(options)).toThrow(new RangeError(message));
    // The guard itself refuses it when built, before any request.
    expect(() => continuityGuard(fetch, options)).toThrow(RangeError);
  });
});
