/**
 * A playground session, without the page: the world's set-up and commands, how far the
 * learner has stepped, and the world at that step. Worlds are deterministic, so stepping back
 * is re-running from the start up to the step before; nothing is undone in place.
 */
import { WorldCmd } from '../../model/world/arbitraries.js';
import { quiesce, type WorldCommand } from '../../model/world/commands.js';
import type { TimelineEntry } from '../../model/world/timeline.js';
import { createWorld, type World } from '../../model/world/world.js';
import { subjectOf, type WorldSpec } from '../explore/world-string.js';

/** A session: the spec (set-up and every command), the epilogue, and the current step. */
export interface Session {
  spec: WorldSpec;
  /** The run's epilogue (release the app, let the tool finish, let time pass) is a last step. */
  finished: boolean;
  /** Steps applied, 0 (the world as created) to {@link stepCount}. */
  position: number;
  /**
   * Observations of the next step (the command at `position`, or the epilogue) already fed to
   * the client machine: the world stopped inside a command, so that one `Advance(1000)` that
   * takes the machine through `stalled` and `reconnecting` can be watched one observation at a
   * time. 0 or absent: none, the world at the step boundary.
   */
  obs?: number;
}

/** A session at step 0 of `spec`; loaded worlds end with their epilogue, as the CLI runs them. */
export function newSession(spec: WorldSpec, finished = false): Session {
  return { spec, finished, position: 0 };
}

/** How many steps the session has: its commands, and the epilogue if it has one. */
export function stepCount(s: Session): number {
  return s.spec.commands.length + (s.finished ? 1 : 0);
}

/** The session at step `position` (clamped to the steps it has), at the step boundary. */
export function seek(s: Session, position: number): Session {
  return {
    spec: s.spec,
    finished: s.finished,
    position: Math.max(0, Math.min(stepCount(s), position)),
  };
}

/** Applies `command` at the current step: later steps are dropped, as in an editor's undo. */
export function applyStep(s: Session, command: WorldCommand): Session {
  const commands = [...s.spec.commands.slice(0, s.position), command];
  // A command applied inside a step replaces that step (and what follows), as at its boundary.
  return { spec: { ...s.spec, commands }, finished: false, position: commands.length };
}

/** Ends the world at the current step with the epilogue (later steps are dropped). */
export function finishAt(s: Session): Session {
  const commands = s.spec.commands.slice(0, Math.min(s.position, s.spec.commands.length));
  return { spec: { ...s.spec, commands }, finished: true, position: commands.length + 1 };
}

/** The same commands under another set-up (configuration, client, server). */
export function withSetup(s: Session, setup: Omit<WorldSpec, 'commands'>): Session {
  const { cfg, client } = setup;
  const spec: WorldSpec = {
    cfg,
    client,
    commands: s.spec.commands,
    ...(setup.server !== undefined ? { server: setup.server } : {}),
  };
  return { ...s, spec };
}

/** The commands applied at the current step (the epilogue not counted). */
export function appliedCommands(s: Session): WorldCommand[] {
  return s.spec.commands.slice(0, Math.min(s.position, s.spec.commands.length));
}

/**
 * The commands the world at the current step has seen: the applied ones, and the one it stopped
 * inside (an observation step), so that its timeline lines are headed by their command.
 */
export function shownCommands(s: Session): WorldCommand[] {
  const applied = appliedCommands(s);
  const inside = (s.obs ?? 0) > 0 ? s.spec.commands[s.position] : undefined;
  return inside === undefined ? applied : [...applied, inside];
}

/** `true` when the current step includes the epilogue. */
export function atEpilogue(s: Session): boolean {
  return s.finished && s.position > s.spec.commands.length;
}

/** Thrown out of the world's timeline when a partial step has fed its last observation. */
const STOP = Symbol('stop');

/**
 * Runs the next step of `w` (the command at `s.position`, or the epilogue) until `obs`
 * observations reached the client machine, and stops there: the world is left exactly as it
 * was the moment the machine took that observation (its clock included). The world is
 * deterministic and rebuilt for every view, so stopping it mid-command undoes nothing.
 */
function partialStep(w: World, s: Session, obs: number): void {
  const tl = w.timeline!;
  const push = tl.push.bind(tl);
  let seen = 0;
  tl.push = (...items: TimelineEntry[]): number => {
    const n = push(...items);
    for (const e of items) if (e.tag.k === 'observe' && ++seen >= obs) throw STOP;
    return n;
  };
  try {
    const next = s.spec.commands[s.position];
    if (next !== undefined) new WorldCmd(next).run({}, w);
    else if (s.finished) quiesce(w);
  } catch (e) {
    if (e !== STOP) throw e;
  } finally {
    delete (tl as { push?: unknown }).push;
  }
}

/** The world at the current step, recorded (it has a timeline). */
export function worldAt(s: Session): World {
  const w = createWorld(s.spec.cfg, { ...subjectOf(s.spec), record: true });
  // As runWorld applies them, so that the same spec gives the same world as the CLI's.
  for (const c of appliedCommands(s)) new WorldCmd(c).run({}, w);
  if (atEpilogue(s)) quiesce(w);
  else if ((s.obs ?? 0) > 0) partialStep(w, s, s.obs!);
  return w;
}

/** A place a learner can step to: a step boundary (`obs` 0) or an observation inside a step. */
export interface Stop {
  position: number;
  obs: number;
  /** The machine's state before and after the observation that ends here. */
  from: string;
  to: string;
}

/**
 * Every observation of the whole session (every step, the epilogue included) as a place to
 * stop: the k-th observation of the step at `position` is `{position, obs: k}`, except that the
 * last observation of a step is its boundary, `{position + 1, obs: 0}`. Setup observations (the
 * opening stream) belong to step 0.
 */
export function observationStops(s: Session): Stop[] {
  const w = createWorld(s.spec.cfg, { ...subjectOf(s.spec), record: true });
  const setup = w.timeline!.length;
  for (const c of s.spec.commands) new WorldCmd(c).run({}, w);
  if (s.finished) quiesce(w);
  const es = w.timeline!.slice(setup);
  const step = (e: TimelineEntry) => (e.command < 0 ? s.spec.commands.length : e.command);
  const stops: Stop[] = [];
  for (let i = 0; i < es.length; i++) {
    const e = es[i]!;
    if (e.tag.k !== 'observe') continue;
    const p = step(e);
    const k = es.slice(0, i + 1).filter((x) => x.tag.k === 'observe' && step(x) === p).length;
    const last = !es.slice(i + 1).some((x) => x.tag.k === 'observe' && step(x) === p);
    stops.push({
      position: last ? p + 1 : p,
      obs: last ? 0 : k,
      from: e.tag.from,
      to: e.state,
    });
  }
  return stops;
}

const before = (a: { position: number; obs?: number }, b: { position: number; obs?: number }) =>
  a.position < b.position || (a.position === b.position && (a.obs ?? 0) < (b.obs ?? 0));

/** The session at `stop`. */
function at(s: Session, stop: Stop): Session {
  return { spec: s.spec, finished: s.finished, position: stop.position, obs: stop.obs };
}

/**
 * One observation forward (`'observation'`), or forward to the next observation that changes the
 * machine's state (`'transition'`). With none left, to the last step (where the claims are
 * judged); the session as it is when it is there already.
 */
export function stepForward(s: Session, unit: 'observation' | 'transition'): Session {
  const next = observationStops(s).find(
    (t) => before(s, t) && (unit === 'observation' || t.from !== t.to),
  );
  if (next) return at(s, next);
  return s.position < stepCount(s) || (s.obs ?? 0) > 0 ? seek(s, stepCount(s)) : s;
}

/**
 * One observation back: the world without its latest observation (to step 0 when there is none
 * before). Off a stop (a step reached by the command buttons), the latest observation is the
 * last stop before it, so the one before that is where the world is one observation shorter.
 */
export function stepBack(s: Session): Session {
  const stops = observationStops(s);
  const earlier = stops.filter((t) => before(t, s));
  const onStop = stops.some((t) => t.position === s.position && t.obs === (s.obs ?? 0));
  if (!onStop) earlier.pop();
  const prev = earlier.pop();
  return prev ? at(s, prev) : seek(s, 0);
}
