/**
 * Mixed eras: a 2025-11-25 client whose server restarts mid-call as a 2026-07-28 server (a
 * rolling upgrade: no sessions, every GET answered 405, `Last-Event-ID` ignored, no ids). The
 * fault is the command `Restart(2026-07-28)`. The model's client decides resumption-failed at
 * the first reconnect after it and never waits: its call ends in that instant, and every claim
 * holds. The client that waits for its request timeout decides the same and is caught by
 * NoWaitAfterFailure.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { CLAIMS, claimNamed, firstBroken } from '../../model/claims/index.js';
import { commandsArb, configArb } from '../../model/world/arbitraries.js';
import { clientState, REQUEST_TIMEOUT_MS } from '../../model/world/client.js';
import { describeCommand, type WorldCommand } from '../../model/world/commands.js';
import { DEFAULT_CONFIG } from '../../model/world/config.js';
import { ERA_2026_STATUS } from '../../model/world/policies.js';
import { runWorld, toWorldCommands } from '../../model/world/property.js';
import { brokenConditions } from '../../model/world/validity.js';
import { formatCommands, parseCommands } from '../../src/explore/world-string.js';
import { runs, SEED } from './helpers.js';

const emit: WorldCommand = { kind: 'Emit', stream: 'tool' };
const upgrade: WorldCommand = { kind: 'Restart', era: '2026-07-28' };
const wait = (ms: number): WorldCommand => ({ kind: 'Advance', ms });
// A valid deployment: durable store, honest server with a declared floor, primed stream.
const cfg = { ...DEFAULT_CONFIG, I: 0 };
const cmds: WorldCommand[] = [emit, emit, { kind: 'Drain' }, upgrade, wait(5_000)];

describe('mixed eras: the server restarts as a 2026-07-28 server mid-call', () => {
  test('the resume GET with Last-Event-ID is answered 405; the model client decides resumption-failed at once', () => {
    const w = runWorld(cfg, cmds, {}, { record: true });
    const [r, ...more] = w.truth.reconnects;
    expect(more).toEqual([]);
    expect(r).toMatchObject({ cursor: 2, status: ERA_2026_STATUS, sessionAlive: false });
    expect(clientState(w.client)).toBe('resumptionFailed');
    expect(w.client.error).toMatch(/status=405/);
    // Never waits: decided at the answer, and the call ended there, with the outcome.
    expect(w.client.decidedAt).toBe(r!.t);
    expect(w.client.call).toMatchObject({ at: r!.t, by: 'decision', outcome: 'resumption-failed' });
    expect(firstBroken(w)).toBeNull();
    expect(claimNamed('NoWaitAfterFailure').check(w)).toMatchObject({ applicable: true, ok: true });
    // The new server has no sessions: the seed's durableOr404 does not hold, so the claims
    // under validity do not apply (the session was really lost, and nothing said so).
    expect(brokenConditions(w)).toEqual(['durableOr404']);
    expect(w.truth.sessionLostAt).not.toBeNull();
    const lines = w.timeline!.map((e) => e.action);
    expect(lines).toContain(
      'restarts as a 2026-07-28 server (rolling upgrade): no sessions, every GET answered 405, Last-Event-ID ignored',
    );
  });

  test('the same world with the client that waits for its request timeout breaks NoWaitAfterFailure', () => {
    const w = runWorld(cfg, cmds, { behaviour: { waitsForRequestTimeout: true } });
    expect(clientState(w.client)).toBe('resumptionFailed');
    expect(w.client.call).toMatchObject({
      at: w.client.decidedAt! + REQUEST_TIMEOUT_MS,
      by: 'request-timeout',
      outcome: null,
    });
    expect(firstBroken(w, CLAIMS)?.claim.name).toBe('NoWaitAfterFailure');
  });

  test('Restart(2026-07-28) reads back from world strings and counterexamples', () => {
    expect(describeCommand(upgrade)).toBe('Restart(2026-07-28)');
    expect(parseCommands(formatCommands(cmds))).toEqual(cmds);
    expect(() => parseCommands('Restart(2027)')).toThrow(/Restart takes no argument or/);
  });

  test('in generated worlds with the upgrade, the first reconnect after it is 405 and decides resumption-failed at once', () => {
    let upgraded = 0;
    let judged = 0;
    fc.assert(
      fc.property(configArb('mixed'), commandsArb('mixed'), (c, generated) => {
        const commands = toWorldCommands(generated);
        const w = runWorld(c, commands);
        expect(firstBroken(w)?.verdict.why ?? null).toBeNull();
        if (!w.truth.restarts.some((x) => x.era !== undefined)) return;
        upgraded++;
        // The upgraded server answers every GET 405, so the 405s are the reconnects after it.
        const first = w.truth.reconnects.findIndex((x) => x.status === ERA_2026_STATUS);
        if (first < 0) return; // no reconnect after it: done, or decided before
        judged++;
        const r = w.truth.reconnects[first]!;
        // Decided at that answer (the client stops: no reconnect after it), never waiting.
        expect(first).toBe(w.truth.reconnects.length - 1);
        expect(clientState(w.client)).toBe('resumptionFailed');
        expect(w.client.decidedAt).toBe(r.t);
        expect(w.client.call?.at).toBe(r.t);
      }),
      { numRuns: runs(1_500), seed: SEED },
    );
    console.log(
      `mixed eras: ${upgraded} generated world(s) upgraded, ${judged} judged at the reconnect after it; seed ${SEED} (replay: MCPR_SEED=${SEED} npx vitest run properties/world/mixed-eras.test.ts)`,
    );
    expect(judged).toBeGreaterThan(runs(1_500) * 0.05);
  });
});
