/**
 * The playground without the page: a session stepped to any point is the world the CLI runs up
 * to that point (stepping back is re-running, worlds are deterministic), and the Load box reads
 * world strings, replay commands and incident names into the same worlds the CLI prints.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { applyCommand, quiesce } from '../../model/world/commands.js';
import { formatTimeline } from '../../model/world/counterexample.js';
import { runWorld } from '../../model/world/property.js';
import { SEED_SCENARIOS } from '../../model/world/scenarios.js';
import { createWorld } from '../../model/world/world.js';
import { clientMachineConfig } from '../../model/client-machine.js';
import { loadText, shellWords } from '../../src/playground/load.js';
import {
  applyStep,
  finishAt,
  newSession,
  seek,
  stepBack,
  stepCount,
  stepForward,
  worldAt,
  type Session,
} from '../../src/playground/session.js';
import { foldIds, serverFacts, timelineRows, viewOf } from '../../src/playground/view.js';
import { formatWorldString, subjectOf } from '../../src/explore/world-string.js';
import { announceSeed } from '../support/seed.js';
import { recordedArb } from '../world/recorded.js';
import { runs } from '../world/helpers.js';

const SEED = announceSeed('properties/playground/session.test.ts');

describe('playground sessions', () => {
  test('at its last step a loaded world is the run of the CLI; at step k, k commands applied', () => {
    fc.assert(
      fc.property(recordedArb, fc.nat(), ({ cfg, commands, client, world }, k) => {
        const s = newSession({ cfg, commands, client }, true);
        expect(worldAt(seek(s, stepCount(s))).timeline).toEqual(world.timeline);
        const at = k % (commands.length + 1);
        const direct = createWorld(cfg, { ...subjectOf({ client }), record: true });
        for (const c of commands.slice(0, at)) {
          direct.command++;
          applyCommand(direct, c);
        }
        const stepped = worldAt(seek(seek(s, stepCount(s)), at));
        expect(stepped.timeline).toEqual(direct.timeline);
      }),
      { seed: SEED, numRuns: runs(150) },
    );
  });

  test('the check has teeth: without the epilogue the last step is another world', () => {
    const sc = SEED_SCENARIOS.find((x) => x.name === 'restart-empty-200')!;
    const s = newSession({ cfg: sc.cfg, commands: sc.commands, client: 'model' }, false);
    const w = worldAt(seek(s, stepCount(s)));
    expect(w.timeline).not.toEqual(runWorld(sc.cfg, sc.commands, {}, { record: true }).timeline);
    const finished = worldAt(finishAt(seek(s, stepCount(s))));
    const epilogue = createWorld(sc.cfg, { record: true });
    for (const c of sc.commands) {
      epilogue.command++;
      applyCommand(epilogue, c);
    }
    quiesce(epilogue);
    expect(finished.timeline).toEqual(epilogue.timeline);
  });

  test('a command applied in the middle drops the later steps, as an editor undo would', () => {
    const s = seek(
      newSession(
        { cfg: SEED_SCENARIOS[0]!.cfg, commands: SEED_SCENARIOS[0]!.commands, client: 'model' },
        true,
      ),
      3,
    );
    const t = applyStep(s, { kind: 'Restart' });
    expect(t.position).toBe(4);
    expect(stepCount(t)).toBe(4);
    expect(t.finished).toBe(false);
    expect(t.spec.commands[3]).toEqual({ kind: 'Restart' });
  });

  test('a world with Restart(2026-07-28) loads, and at its end NoWaitAfterFailure is judged', () => {
    const text =
      'world:v1;client=waits-for-request-timeout;config=D=64,K=15000,T=90000,B=8,I=0,R=1000,P=30000,Q=0,N=30,keepalive=shared,read=decoupled,idleOn=bytes,durable=true,onRestart=404,policy=honest,ack=true,priming=open;commands=Emit,Emit,Drain,Restart(2026-07-28),Advance(5000)';
    const loaded = loadText(text);
    expect(loaded.spec.commands[3]).toEqual({ kind: 'Restart', era: '2026-07-28' });
    expect(formatWorldString(loaded.spec)).toBe(text);
    const s = newSession(loaded.spec, true);
    const end = viewOf(worldAt(seek(s, stepCount(s))));
    expect(end.state).toBe('resumptionFailed');
    const claim = end.claims.find((c) => c.name === 'NoWaitAfterFailure')!;
    expect(claim.status).toBe('BROKEN');
    expect(claim.why).toMatch(/waited for the client's own request timer/);
  });

  test('the view shows the ring, the socket, the client and each claim', () => {
    const sc = SEED_SCENARIOS.find((x) => x.name === 'seven-minute-stall')!;
    const s = newSession({ cfg: sc.cfg, commands: sc.commands, client: 'model' }, true);
    const atStall = viewOf(worldAt(seek(s, 262)));
    expect(atStall.server.retained).toHaveLength(64);
    expect([atStall.server.floor, atStall.server.head]).toEqual([67, 130]);
    expect(atStall.socket.frames).toHaveLength(8);
    expect(atStall.client.delivered).toBe('1..41');
    const end = viewOf(worldAt(seek(s, stepCount(s))));
    expect(end.state).toBe('resumptionFailed');
    expect(end.claims.map((c) => `${c.name} ${c.status}`)).toEqual([
      'NoUnprovenAcceptance held',
      'NoSilentPartialResult held',
      'NoFalseAlarm n/a',
      'Delivery n/a',
      'NoWaitAfterFailure held',
    ]);
    expect(foldIds([1, 2, 3, 5, 7, 8])).toBe('1..3, 5, 7..8');
  });

  test('the timeline table keeps every line’s client state and cursor in their own cells (C2)', () => {
    const sc = SEED_SCENARIOS.find((x) => x.name === 'seven-minute-stall')!;
    const w = runWorld(sc.cfg, sc.commands, {}, { record: true });
    for (const brief of [false, true]) {
      const lines = formatTimeline(w, sc.commands, { brief });
      const rows = timelineRows(lines);
      expect(rows).toHaveLength(lines.length);
      const numbered = rows.flatMap((r) => (r.kind === 'line' ? [r] : []));
      expect(numbered.length).toBeGreaterThan(10);
      for (const r of numbered) {
        expect(Object.keys(clientMachineConfig.states)).toContain(r.cells[4]);
        expect(r.cells[5]).toMatch(/^\d+$/);
        expect(r.cells[3]).not.toBe('');
      }
      // The stall: the idle timer's observation, its state and cursor, as the CLI prints it.
      const idle = numbered.find((r) => r.cells[3] === 'machine <- IDLE_TIMEOUT')!;
      expect(idle.cells.slice(2)).toEqual(['client', 'machine <- IDLE_TIMEOUT', 'stalled', '41']);
      const notes = rows.flatMap((r) => (r.kind === 'note' ? [r.text] : []));
      expect(notes.some((t) => /^-- command/.test(t))).toBe(true);
    }
  });

  const EMIT = { kind: 'Emit', stream: 'tool' } as const;
  test('the server panel says the tool finished once it emitted its result, never running (A10)', () => {
    const sc = SEED_SCENARIOS.find((x) => x.name === 'seven-minute-stall')!;
    const cfg = { ...sc.cfg, N: 2 };
    const s = newSession({ cfg, commands: [EMIT, EMIT], client: 'model' }, true);
    const early = viewOf(worldAt(seek(s, 1))).server;
    expect(early.toolEvents).toBeLessThan(early.N);
    expect(serverFacts(early)).toMatch(/, tool running \(/);
    const end = viewOf(worldAt(seek(s, stepCount(s)))).server;
    expect(end.toolEvents).toBe(end.N);
    expect(serverFacts(end)).toMatch(/, tool finished \(\d+ of \d+ events emitted\)/);
    expect(serverFacts({ ...end, toolEvents: 0, toolAlive: false })).toMatch(/, tool dead \(/);
  });
});

describe('stepping by observation', () => {
  const sc = SEED_SCENARIOS.find((x) => x.name === 'seven-minute-stall')!;
  const s = newSession({ cfg: sc.cfg, commands: sc.commands, client: 'model' }, true);
  const observations = (t: Session) =>
    worldAt(t).timeline!.filter((e) => e.tag.k === 'observe').length;

  test('each step forward feeds the machine exactly one more observation, to the end', () => {
    let t = s;
    let n = observations(t);
    const states: string[] = [];
    for (;;) {
      const next = stepForward(t, 'observation');
      if (next === t) break;
      const m = observations(next);
      // The last move, with no observation left, goes to the end (the claims are judged there).
      expect(m).toBe(next.position === stepCount(s) && m === n ? n : n + 1);
      states.push(viewOf(worldAt(next)).state);
      [t, n] = [next, m];
    }
    expect(t.position).toBe(stepCount(s));
    // The stall's one Advance(1000) goes through stalled and reconnecting: both are shown.
    expect(states.join(' ')).toMatch(/streaming stalled reconnecting awaitingProof/);
    // And back again, one at a time.
    const back = stepBack(t);
    expect(observations(back)).toBe(n - 1);
  });

  test('next transition stops only where the state changes', () => {
    const seen: string[] = [];
    for (
      let t = s, next = stepForward(t, 'transition');
      next !== t;
      t = next, next = stepForward(t, 'transition')
    )
      seen.push(viewOf(worldAt(next)).state);
    expect(seen).toEqual([
      'stalled',
      'reconnecting',
      'awaitingProof',
      'resumptionFailed',
      'resumptionFailed', // the end: no transition left
    ]);
  });

  test('claims judged at the end are pending before the epilogue', () => {
    const claims = viewOf(worldAt(seek(s, 0)), false).claims;
    expect(claims.map((c) => `${c.name} ${c.status}`)).toEqual([
      'NoUnprovenAcceptance held',
      'NoSilentPartialResult pending',
      'NoFalseAlarm pending',
      'Delivery pending',
      'NoWaitAfterFailure pending',
    ]);
  });
});

describe('the Load box', () => {
  test('reads an incident by name, a world string, and a replay command', () => {
    const byName = loadText('seven-minute-stall');
    expect(byName.spec.commands).toEqual(SEED_SCENARIOS[0]!.commands);
    expect(loadText(formatWorldString(byName.spec)).spec).toEqual(byName.spec);
    const replay =
      "replay: mcp-resumption explore --seed 1 --path 11:0:0:0:0:0:0:0:0:0:0:0:1:3:2:3:4:5 --replay-path '/h:D' --kind mixed --mutant trusts-any-200";
    const loaded = loadText(replay);
    expect(loaded.spec.client).toBe('trusts-any-200');
    expect(loaded.label).toBe('NoSilentPartialResult broken (trusts-any-200)');
    const s = newSession(loaded.spec, true);
    const claims = viewOf(worldAt(seek(s, stepCount(s)))).claims;
    expect(claims.find((c) => c.name === 'NoSilentPartialResult')?.status).toBe('BROKEN');
  });

  test.each([
    ['hello', /paste a world string/],
    ['mcp-resumption explore --seed 1', /needs --seed N and --path P/],
    ['mcp-resumption explore --seed 1 --path 0 --kind nope', /unknown --kind nope/],
  ])('refuses %j with one line', (text, message) => {
    expect(() => loadText(text)).toThrow(message);
  });

  test('splits a command line as a shell would, quotes included', () => {
    expect(shellWords(`a --x '/h:D' "b c" d`)).toEqual(['a', '--x', '/h:D', 'b c', 'd']);
  });
});
