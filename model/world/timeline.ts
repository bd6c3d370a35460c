/** The world's timeline: what happened, when, by whom, and where the client machine was after. */
import type { ClientStateName } from '../client-machine.js';

/** Who acted. */
export type Actor = 'server' | 'network' | 'client';

/** One line of a timeline. */
export interface TimelineEntry {
  /** Virtual time. */
  t: number;
  actor: Actor;
  action: string;
  /** The client machine's state after the action. */
  state: ClientStateName;
  /** The client's cursor after the action. */
  cursor: number;
  /** Index of the command (of the generated sequence) this entry belongs to; -1: the epilogue. */
  command: number;
}
