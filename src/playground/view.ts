/**
 * What the playground page shows of a world, as plain data: the machine's state and last
 * decision, the server's ring buffer (floor, head, evicted ids) and writer queue, the socket
 * buffer, the client's cursor and what it delivered, and each claim's verdict on the world as
 * it stands. The page only turns this into HTML; a node test can read it directly.
 */
import { CLAIMS } from '../../model/claims/index.js';
import type { ClientStateName } from '../../model/client-machine.js';
import { clientState } from '../../model/world/client.js';
import { formatTime } from '../../model/world/clock.js';
import type { Frame } from '../../model/world/frames.js';
import { TOOL_STREAM } from '../../model/world/frames.js';
import { floorOf } from '../../model/world/server.js';
import type { World } from '../../model/world/world.js';

/**
 * One claim's verdict: held, broken, not applicable (its preconditions did not hold), or pending:
 * judged only on a finished world, and this one has not had its epilogue yet.
 */
export interface ClaimView {
  name: string;
  status: 'held' | 'BROKEN' | 'n/a' | 'pending';
  /** Why it broke or did not apply ('' when it held). */
  why: string;
  /** The claim in one sentence. */
  text: string;
}

/** A world, for the page. */
export interface WorldView {
  /** Virtual time, m:ss. */
  time: string;
  state: ClientStateName;
  /** The machine's latest decision and its reason, if it took one. */
  outcome: string | null;
  reason: string | null;
  server: {
    epoch: string;
    sessionKnown: boolean;
    toolAlive: boolean;
    /** Tool events emitted, of N. */
    toolEvents: number;
    N: number;
    /** Ring depth (`null`: unbounded). */
    depth: number | null;
    /** Lowest retained id and the head (`floor > head`: nothing retained). */
    floor: number;
    head: number;
    /** Retained ids, oldest first. */
    retained: number[];
    /** Every id evicted so far. */
    evicted: number[];
    /** Frames the writer could not yet get into the socket. */
    writer: string[];
    connected: boolean;
  };
  socket: { up: boolean; capacity: number; frames: string[] };
  client: {
    cursor: number;
    /** Delivered ids with runs folded: `1..41, 130`. */
    delivered: string;
    deliveredCount: number;
    connected: boolean;
    appSaturated: boolean;
    done: 'complete' | 'failed' | null;
    error: string | null;
  };
  claims: ClaimView[];
}

/** A frame as a short label: `41`, `other:3`, `ka` (keepalive), `end`. */
export function frameLabel(f: Frame): string {
  if (f.k === 'keepalive') return 'ka';
  if (f.k === 'end') return 'end';
  return `${f.stream === TOOL_STREAM ? '' : f.stream + ':'}${f.id}${f.priming ? 'p' : ''}`;
}

/** Ids with runs of consecutive ones folded: `1..41, 130..131`. */
export function foldIds(ids: readonly number[]): string {
  const out: string[] = [];
  let i = 0;
  while (i < ids.length) {
    let j = i;
    while (j + 1 < ids.length && ids[j + 1] === ids[j]! + 1) j++;
    out.push(j > i ? `${ids[i]}..${ids[j]}` : String(ids[i]));
    i = j + 1;
  }
  return out.join(', ');
}

/**
 * The claims that can be judged on a world that is still running: a delivered gap or duplicate
 * is final the moment it happens. The others speak of how the world ends (an error surfaced, a
 * tool complete, conditions of validity over the whole run), so before the epilogue they are
 * pending: judged mid-run, NoSilentPartialResult reads BROKEN for the model's own client.
 */
export const LIVE_CLAIMS: ReadonlySet<string> = new Set(['NoUnprovenAcceptance']);

/**
 * The server panel's line. The tool is `finished` once it emitted its N-th event (the result),
 * `running` before that, and `dead` when a restart killed it first: a finished tool is not
 * running (issue 32, A10).
 */
export function serverFacts(s: WorldView['server']): string {
  const tool = s.toolEvents >= s.N ? 'finished' : s.toolAlive ? 'running' : 'dead';
  return (
    `session ${s.epoch} ${s.sessionKnown ? 'known' : 'lost'}, tool ${tool} ` +
    `(${s.toolEvents} of ${s.N} events emitted), ${s.connected ? 'connected' : 'not connected'}`
  );
}

/**
 * The view of `w`. `finished`: the world has had its epilogue, so every claim is judged as the
 * CLI judges it; otherwise only the {@link LIVE_CLAIMS} are, and the rest are pending.
 */
export function viewOf(w: World, finished = true): WorldView {
  const s = w.server;
  const c = w.client;
  const ctx = c.snap.context;
  return {
    time: formatTime(w.clock.now),
    state: clientState(c),
    outcome: ctx.outcome,
    reason: ctx.reason?.text ?? null,
    server: {
      epoch: s.epoch,
      sessionKnown: s.sessionKnown,
      toolAlive: s.toolAlive,
      toolEvents: s.toolEvents,
      N: w.cfg.N,
      depth: w.cfg.D,
      floor: floorOf(s),
      head: s.head,
      retained: s.log.map((e) => e.id),
      evicted: [...w.truth.evicted],
      writer: s.out.map((q) => frameLabel(q.frame)),
      connected: s.connected,
    },
    socket: { up: w.net.up, capacity: w.cfg.B, frames: w.net.socket.map(frameLabel) },
    client: {
      cursor: c.cursor,
      delivered: foldIds(c.delivered.map((e) => e.id)),
      deliveredCount: c.delivered.length,
      connected: c.connected,
      appSaturated: c.appSaturated,
      done: c.done,
      error: c.error,
    },
    claims: CLAIMS.map((claim): ClaimView => {
      if (!finished && !LIVE_CLAIMS.has(claim.name))
        return {
          name: claim.name,
          status: 'pending',
          why: 'judged when the world ends (Finish, or the last step of a loaded world)',
          text: claim.text,
        };
      const v = claim.check(w);
      const status = !v.ok ? 'BROKEN' : v.applicable ? 'held' : 'n/a';
      return { name: claim.name, status, why: v.ok && v.applicable ? '' : v.why, text: claim.text };
    }),
  };
}

/** A row of the timeline as the page lays it out: a numbered line, or a note across it. */
export type TimelineRow =
  | { kind: 'head' | 'line'; cells: [string, string, string, string, string, string] }
  | { kind: 'note'; text: string };

/**
 * The CLI's timeline lines (fixed-width text: `#`, time, actor, action, client state, cursor)
 * as table rows, so that the page can wrap the action and keep the client state and the
 * cursor in view at any width instead of scrolling sideways (issue 32, C2). The first three
 * columns are read at the header's offsets; the state and the cursor are a line's last two
 * words (an action longer than its column pushes them right, never splits them).
 */
export function timelineRows(lines: readonly string[]): TimelineRow[] {
  const header = lines.findIndex((l) => /^\s*#\s+time\s+actor\s+action\s/.test(l));
  if (header < 0) return lines.map((text) => ({ kind: 'note', text: text.trim() }));
  const h = lines[header]!;
  const at = (word: string) => h.indexOf(word);
  const [timeAt, actorAt, actionAt] = [at('time'), at('actor'), at('action')];
  return lines.map((line, i): TimelineRow => {
    if (i === header)
      return { kind: 'head', cells: ['#', 'time', 'actor', 'action', 'client state', 'cursor'] };
    const tail = /\s(\S+)\s+(\S+)\s*$/.exec(line);
    if (i < header || !/^\s*\d/.test(line) || tail === null || tail.index < actionAt)
      return { kind: 'note', text: line.trim() };
    return {
      kind: 'line',
      cells: [
        line.slice(0, timeAt).trim(),
        line.slice(timeAt, actorAt).trim(),
        line.slice(actorAt, actionAt).trim(),
        line.slice(actionAt, tail.index).trim(),
        tail[1]!,
        tail[2]!,
      ],
    };
  });
}
