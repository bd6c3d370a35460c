/**
 * A playground session, without the page: the world's set-up and commands, how far the
 * learner has stepped, and the world at that step. Worlds are deterministic, so stepping back
 * is re-running from the start up to the step before; nothing is undone in place.
 */
import { WorldCmd } from '../../model/world/arbitraries.js';
import { quiesce, type WorldCommand } from '../../model/world/commands.js';
import { createWorld, type World } from '../../model/world/world.js';
import { subjectOf, type WorldSpec } from '../world-string.js';

/** A session: the spec (set-up and every command), the epilogue, and the current step. */
export interface Session {
  spec: WorldSpec;
  /** The run's epilogue (release the app, let the tool finish, let time pass) is a last step. */
  finished: boolean;
  /** Steps applied, 0 (the world as created) to {@link stepCount}. */
  position: number;
}

/** A session at step 0 of `spec`; loaded worlds end with their epilogue, as the CLI runs them. */
export function newSession(spec: WorldSpec, finished = false): Session {
  return { spec, finished, position: 0 };
}

/** How many steps the session has: its commands, and the epilogue if it has one. */
export function stepCount(s: Session): number {
  return s.spec.commands.length + (s.finished ? 1 : 0);
}

/** The session at step `position` (clamped to the steps it has). */
export function seek(s: Session, position: number): Session {
  return { ...s, position: Math.max(0, Math.min(stepCount(s), position)) };
}

/** Applies `command` at the current step: later steps are dropped, as in an editor's undo. */
export function applyStep(s: Session, command: WorldCommand): Session {
  const commands = [...s.spec.commands.slice(0, s.position), command];
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

/** `true` when the current step includes the epilogue. */
export function atEpilogue(s: Session): boolean {
  return s.finished && s.position > s.spec.commands.length;
}

/** The world at the current step, recorded (it has a timeline). */
export function worldAt(s: Session): World {
  const w = createWorld(s.spec.cfg, { ...subjectOf(s.spec), record: true });
  // As runWorld applies them, so that the same spec gives the same world as the CLI's.
  for (const c of appliedCommands(s)) new WorldCmd(c).run({}, w);
  if (atEpilogue(s)) quiesce(w);
  return w;
}
