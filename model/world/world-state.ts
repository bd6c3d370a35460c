/**
 * What one world is made of: its parts and what the quiet-poll jump remembers. A file of types
 * only, below both world.ts (which builds and steps a world) and quiet-polls.ts (which jumps
 * over runs of quiet polls): each imports these, neither imports the other back.
 */
import type { ClientPort, ClientState } from './client.js';
import type { VirtualClock } from './clock.js';
import type { PolicyName, WorldConfig } from './config.js';
import type { Frame } from './frames.js';
import type { GroundTruth } from './ground-truth.js';
import type { ServerState } from './server.js';
import type { TimelineEntry } from './timeline.js';

/** The network between server and client: one connection's socket buffer. */
export interface NetworkState {
  /** The connection is physically up. */
  up: boolean;
  /** Frames in the socket buffer (capacity B; independent keepalives may exceed it). */
  socket: Frame[];
}

/** The world at one poll: its state (times relative to now), and what had been recorded. */
export interface PollMark {
  t: number;
  state: unknown[];
  reconnects: number;
  observations: number;
}

/** One world. */
export interface World {
  cfg: WorldConfig;
  clock: VirtualClock;
  server: ServerState;
  net: NetworkState;
  client: ClientState;
  /** What really happened: only the claims read it. */
  truth: GroundTruth;
  /** The policy the server runs. */
  policy: PolicyName;
  timeline: TimelineEntry[] | null;
  coverage: Set<string> | null;
  /** The world at the latest poll of the client (model/world/quiet-polls.ts). */
  pollMark: PollMark | null;
  /** Runs of quiet polls are jumped over (not with `stepEveryPoll`, nor on a timeline). */
  skipPolls: boolean;
  /** Index of the command being applied (timelines). */
  command: number;
  port: ClientPort;
}
