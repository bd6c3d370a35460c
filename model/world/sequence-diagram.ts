/**
 * A recorded world as a Mermaid `sequenceDiagram` between the client, the server and the
 * server's event log: the same timeline as the text one (`formatTimeline`), drawn. Runs of
 * routine lines are folded (./timeline-fold.ts) so that the seven-minute stall stays one
 * screen long. `explore --mermaid`, the docs' incident diagrams and the playground's export
 * all call this one renderer.
 */
import type { Observation } from '../observations.js';
import { clientState } from './client.js';
import { formatTime } from './clock.js';
import { TOOL_STREAM } from './frames.js';
import { describeRun, foldTimeline, idRange, runSpan, type FoldedRun } from './timeline-fold.js';
import type { TimelineEntry } from './timeline.js';
import type { World } from './world.js';

/**
 * Text that Mermaid reads as text: `;` ends a statement and `#` starts an entity code in a
 * sequence diagram, and `<`/`>` would be taken for HTML.
 */
export function mermaidText(s: string): string {
  return s.replace(/;/g, ',').replace(/#/g, 'no. ').replace(/</g, '‹').replace(/>/g, '›');
}

type Who = 'C' | 'S' | 'L';

/** A message from one participant to another; `arrow` is Mermaid's (`->>`, `-->>`, `--x`). */
function msg(from: Who, arrow: '->>' | '-->>' | '--x', to: Who, text: string): string {
  return `  ${from}${arrow}${to}: ${mermaidText(text)}`;
}

/** A note over one participant, or over a span of them (`C,L`: all three). */
function note(over: Who | 'S,L' | 'C,L', text: string): string {
  return `  Note over ${over}: ${mermaidText(text)}`;
}

/** `130`, `5..30 (26)`, `other:3`: replayed ids with runs of plain numbers folded. */
function replayed(ids: readonly string[]): string {
  const out: string[] = [];
  let i = 0;
  while (i < ids.length) {
    const a = ids[i]!;
    let j = i;
    if (/^\d+$/.test(a))
      while (j + 1 < ids.length && ids[j + 1] === String(Number(ids[j]) + 1)) j++;
    out.push(j > i ? idRange([Number(a), Number(ids[j])]) : a);
    i = j + 1;
  }
  return out.join(' ');
}

/** A folded run: its arrows (what was appended, blocked, delivered) and one note that says it. */
function runLines(r: FoldedRun): string[] {
  const out: string[] = [];
  if (r.emitted) out.push(msg('S', '->>', 'L', `append events ${idRange(r.emitted)}`));
  if (r.blocked > 0)
    out.push(msg('S', '--x', 'C', `keepalive blocked, socket full (x${r.blocked})`));
  if (r.arrived) out.push(msg('S', '-->>', 'C', `events ${idRange(r.arrived)} arrive`));
  if (r.keepalives > 0) out.push(msg('S', '-->>', 'C', `keepalive (x${r.keepalives})`));
  out.push(
    note('C,L', `${runSpan(r)} ${describeRun(r)} (${r.to - r.from + 1} timeline lines folded)`),
  );
  return out;
}

/** What the client machine was fed, drawn; and its change of state, if any. */
function observationLines(e: TimelineEntry, obs: Observation, from: string): string[] {
  const out: string[] = [];
  const change = from !== e.state ? note('C', `${from} → ${e.state} on ${obs.type}`) : null;
  switch (obs.type) {
    case 'OPEN':
      out.push(msg('S', '-->>', 'C', `${obs.status}, the tool call's stream opens`));
      break;
    case 'EVENT': {
      const other = obs.stream !== undefined && obs.stream !== TOOL_STREAM;
      out.push(msg('S', '-->>', 'C', `event ${obs.id}${other ? ` of stream ${obs.stream}` : ''}`));
      break;
    }
    case 'RECONNECT':
      out.push(
        msg(
          'C',
          '->>',
          'S',
          `${formatTime(e.t)} GET, ${obs.cursor === null ? 'no Last-Event-ID' : `Last-Event-ID ${obs.cursor}`}`,
        ),
      );
      // The client's state changes as it sends; the server's look-up follows.
      if (change) out.push(change);
      out.push(msg('S', '->>', 'L', 'look up the cursor'));
      return out;
    case 'END':
      out.push(msg('S', '-->>', 'C', 'end of stream'));
      break;
    case 'KEEPALIVE':
      out.push(msg('S', '-->>', 'C', 'keepalive'));
      break;
    default:
      // RESPONSE is drawn from the server's answer; timers and drops by their own lines.
      break;
  }
  if (change) out.push(change);
  return out;
}

/** The diagram lines of one entry (none for a line that the next one already says). */
function entryLines(e: TimelineEntry): string[] {
  const tag = e.tag;
  const at = formatTime(e.t);
  switch (tag.k) {
    case 'emit':
      return [msg('S', '->>', 'L', `append ${tag.result ? 'result ' : ''}event ${tag.id}`)];
    case 'emit-other':
      return [msg('S', '->>', 'L', `append event ${tag.id} of the other stream`)];
    case 'tool-done':
      return [note('S', 'the tool has nothing more to emit')];
    case 'evict':
      return [note('L', tag.id === null ? 'nothing to evict' : `event ${tag.id} evicted`)];
    case 'restart':
      if (tag.era !== undefined)
        return [
          note(
            'S,L',
            `${at} restart as a ${tag.era} server (rolling upgrade): no sessions, every GET answered 405`,
          ),
        ];
      return [
        note(
          'S,L',
          `${at} restart, ${tag.durable ? 'durable store: session and log survive' : 'in-memory store: session and log lost'}`,
        ),
      ];
    case 'app':
      return [
        note(
          'C',
          `${at} application thread ${tag.saturated ? 'saturated, the socket is not read' : 'released'}`,
        ),
      ];
    case 'drain':
      return [note('C', 'the reader drains the socket')];
    case 'advance':
      return [note('C,L', `${at} ${tag.ms} ms pass`)];
    case 'drop':
      return [
        msg(
          'S',
          '--x',
          'C',
          `${at} connection drops${tag.silent ? ' silently, the client does not notice' : ''}`,
        ),
      ];
    case 'reconnect':
      return [note('C', 'abandons the stream to reconnect')];
    case 'backoff':
      // The GET that follows says it.
      return [];
    case 'idle':
    case 'request-timeout':
      return [note('C', `${at} ${e.action}`)];
    case 'keepalive-blocked':
      return [msg('S', '--x', 'C', 'keepalive blocked, socket full')];
    case 'end-stream':
      return [note('S', `${at} ends the resumed stream (polling)`)];
    case 'answer': {
      const held = tag.sessionLost
        ? 'session lost'
        : tag.holds
          ? `holds ${tag.holds[0]}..${tag.holds[1]}`
          : `holds nothing, head ${tag.head}`;
      const floor = tag.floor === null ? '' : ` floor=${tag.floor}`;
      const replays = tag.replays.length > 0 ? `, replays ${replayed(tag.replays)}` : '';
      return [
        msg('L', '-->>', 'S', held),
        msg('S', '-->>', 'C', `${tag.status}${floor}${replays}`),
      ];
    }
    case 'observe':
      return observationLines(e, tag.obs, tag.from);
  }
}

/** How the world ended for the client, in one note. */
function endLine(w: World): string {
  const c = w.client;
  if (c.done === 'complete') return note('C', `complete, ${c.delivered.length} events delivered`);
  if (c.done === 'failed' && c.call?.by === 'request-timeout')
    return note('C', `${c.error ?? clientState(c)}; the call waited for its own timer`);
  if (c.done === 'failed') return note('C', c.error ?? clientState(c));
  return note('C', `ended in ${clientState(c)}, undecided: no result and no error`);
}

/**
 * The Mermaid source of a world run with `record: true`: participants client, server and event
 * log; runs of routine lines folded into a note with their arrows; the client machine's state
 * changes as notes; its last word (complete, or the error it surfaced) at the end.
 */
export function sequenceDiagram(w: World): string {
  const es = w.timeline ?? [];
  const lines = [
    'sequenceDiagram',
    '  participant C as client',
    '  participant S as server',
    '  participant L as event log',
  ];
  for (const seg of foldTimeline(es)) {
    if (seg.k === 'run') lines.push(...runLines(seg.run));
    else lines.push(...entryLines(es[seg.index]!));
  }
  lines.push(endLine(w));
  return lines.join('\n');
}
