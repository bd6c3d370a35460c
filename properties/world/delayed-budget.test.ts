/**
 * Rule 7.1 in the world: a declared floor lets the model's client wait (`delayed`), for at most
 * the proof budget P of its episode, measured from the episode's first reconnect. Keepalives do
 * not restart it, and neither do delayed reconnects of the same cursor (a polling server ending
 * each delayed stream). The `delayed-forever` mutant, which has no budget in `delayed`, waits on.
 */
import { describe, expect, test } from 'vitest';
import { CLAIMS } from '../../model/claims/index.js';
import { CLIENT_MUTANTS } from '../../model/mutants/client-mutants.js';
import { clientState } from '../../model/world/client.js';
import { applyCommand, type WorldCommand } from '../../model/world/commands.js';
import { DEFAULT_CONFIG, type WorldConfig } from '../../model/world/config.js';
import { createWorld, type World } from '../../model/world/world.js';
import type { Subject } from '../../model/world/property.js';

const emit: WorldCommand = { kind: 'Emit', stream: 'tool' };
const reconnect: WorldCommand = { kind: 'Reconnect' };
const wait = (ms: number): WorldCommand => ({ kind: 'Advance', ms });

/** An honest, acknowledging server whose tool falls silent after two events. */
const QUIET: WorldConfig = { ...DEFAULT_CONFIG, I: 0, ack: true, priming: 'open' };

function run(cfg: WorldConfig, cmds: WorldCommand[], subject: Subject = {}): World {
  const w = createWorld(cfg, { record: true, ...subject });
  for (const x of cmds) {
    w.command++;
    applyCommand(w, x);
  }
  return w;
}

const delayedForever = CLIENT_MUTANTS.find((m) => m.name === 'delayed-forever')!.subject;

/** The reconnects the server saw, all with the cursor of the first. */
function episode(w: World) {
  const rs = w.truth.reconnects;
  expect(rs.length).toBeGreaterThan(0);
  expect(new Set(rs.map((r) => r.cursor)).size, 'one cursor throughout').toBe(1);
  expect(
    rs.every((r) => r.declaredFloor !== null),
    'every answer declared a floor',
  ).toBe(true);
  return rs;
}

describe('rule 7.1: delayed is bounded by the proof budget', () => {
  test('keepalives do not keep a delayed client waiting past P', () => {
    const cmds = [emit, emit, wait(100), reconnect, wait(QUIET.P - 1)];
    const w = run(QUIET, cmds);
    expect(clientState(w.client), 'delayed within the budget').toBe('delayed');
    applyCommand(w, wait(QUIET.K * 4));
    expect(clientState(w.client)).toBe('resumptionFailed');
    expect(w.client.snap.context.reason?.code).toBe('unproven');
    expect(w.client.done).toBe('failed');
    expect(w.client.error).toMatch(/delayed past the proof budget/);
    const keepalives = w.timeline!.filter(
      (e) => e.tag.k === 'observe' && e.tag.obs.type === 'KEEPALIVE' && e.tag.from === 'delayed',
    );
    expect(keepalives.length, 'keepalives while delayed').toBeGreaterThan(0);
    episode(w);
  });

  test('delayed reconnects of the same cursor do not restart the budget', () => {
    // A polling server ends each delayed stream after Q ms of silence; the client reconnects
    // with the same cursor after R, and the same floor makes it delayed again.
    const cfg: WorldConfig = { ...QUIET, Q: 8_000, R: 1_000, P: 30_000 };
    const w = run(cfg, [emit, emit, wait(100), reconnect, wait(cfg.P * 3)]);
    const rs = episode(w);
    expect(rs.length, 'several delayed reconnects').toBeGreaterThanOrEqual(3);
    expect(clientState(w.client)).toBe('resumptionFailed');
    expect(w.client.snap.context.reason?.code).toBe('unproven');
    // Every reconnect after the first carries the first one's start: one budget.
    for (const r of rs) expect(r.episodeStart).toBe(rs[0]!.t);
    // It failed no later than the reconnect that followed the budget's end: the budget was
    // measured from the first reconnect, not from the latest one.
    const failedAt = w.timeline!.findLast((e) => e.actor === 'client')!.t;
    expect(failedAt).toBeLessThanOrEqual(rs[0]!.t + cfg.P + cfg.R);
    expect(rs[rs.length - 1]!.t).toBeLessThan(rs[0]!.t + cfg.P + cfg.R + 1);
  });

  test('an event within the budget still resumes the delayed episode', () => {
    const w = run(QUIET, [emit, emit, wait(100), reconnect, wait(QUIET.P / 2), emit, wait(1)]);
    expect(clientState(w.client)).toBe('resumed');
  });

  test('the claims hold where the old rule kept a correct client waiting forever', () => {
    const cfg: WorldConfig = { ...QUIET, Q: 8_000 };
    const w = run(cfg, [emit, emit, wait(100), reconnect, wait(cfg.P * 3)]);
    for (const claim of CLAIMS) expect(claim.check(w).ok, claim.name).toBe(true);
    const nspr = CLAIMS.find((c) => c.name === 'NoSilentPartialResult')!;
    expect(nspr.check(w).applicable).toBe(true);
  });

  test('the delayed-forever mutant is still waiting in the same worlds', () => {
    const w1 = run(QUIET, [emit, emit, wait(100), reconnect, wait(QUIET.P * 3)], delayedForever);
    expect(clientState(w1.client)).toBe('delayed');
    expect(w1.client.done).toBeNull();
    const cfg: WorldConfig = { ...QUIET, Q: 8_000 };
    const w2 = run(cfg, [emit, emit, wait(100), reconnect, wait(cfg.P * 3)], delayedForever);
    expect(w2.client.done).toBeNull();
    expect(w2.truth.reconnects.length).toBeGreaterThan(3);
  });
});
