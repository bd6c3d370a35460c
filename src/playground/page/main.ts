/**
 * The playground page: a learner sets up a world, applies its commands one by one, steps back
 * and forth, and sees the client machine, the server's ring, the socket, the client, each claim
 * and the timeline. Everything is computed by the model's own code (./../session.ts,
 * ./../view.ts); this file only reads the form and writes the page.
 */
import { clientMachine } from '../../../model/client-machine.js';
import { CLIENT_MUTANTS } from '../../../model/mutants/client-mutants.js';
import { describeCommand, type WorldCommand } from '../../../model/world/commands.js';
import {
  CONFIG_CHOICES,
  CONFIG_FIELD_HELP,
  CONFIG_FIELD_LABEL,
  NUMERIC_FIELDS,
  OPTIONAL_CHOICES,
  POLICIES,
  formatConfig,
  type PolicyName,
  type WorldConfig,
} from '../../../model/world/config.js';
import { parseConfig } from '../../../model/world/config.js';
import { formatTimeline } from '../../../model/world/counterexample.js';
import { formatTime } from '../../../model/world/clock.js';
import { SEED_SCENARIOS } from '../../../model/world/scenarios.js';
import { sequenceDiagram } from '../../../model/world/sequence-diagram.js';
import { foldedList, simpleDiagram } from '../../docs-gen/simple-diagram.js';
import { formatWorldString, MODEL_CLIENT, type WorldSpec } from '../../explore/world-string.js';
import { loadText } from '../load.js';
import { PRESETS } from '../presets.js';
import {
  applyStep,
  atEpilogue,
  finishAt,
  newSession,
  seek,
  shownCommands,
  stepBack,
  stepCount,
  stepForward,
  withSetup,
  worldAt,
  type Session,
} from '../session.js';
import { subjectOf } from '../../explore/world-string.js';
import { serverFacts, timelineRows, viewOf, type WorldView } from '../view.js';
import { wireTracePanel } from './trace-panel.js';

/** Mermaid's browser build, loaded by its own script tag before this one. */
declare const mermaid: {
  initialize(config: object): void;
  render(id: string, text: string): Promise<{ svg: string }>;
};

const $ = <T extends HTMLElement = HTMLElement>(id: string): T => {
  const el = document.getElementById(id);
  if (!el) throw new Error(`the page has no #${id}`);
  return el as T;
};

const esc = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The configuration fields: numbers (D may be `inf`), then the choices (policy has its own). */
const NUMBERS = NUMERIC_FIELDS;
const CHOICES: Record<string, readonly string[]> = Object.fromEntries(
  Object.entries(CONFIG_CHOICES).filter(([k]) => k !== 'policy'),
);

let session: Session = newSession({ cfg: PRESETS[0]!.cfg, commands: [], client: MODEL_CLIENT });

function options(values: readonly string[], labels: readonly string[] = values): string {
  return values.map((v, i) => `<option value="${esc(v)}">${esc(labels[i]!)}</option>`).join('');
}

/** Builds the set-up form once: presets, clients, policies and a field per config value. */
function buildForm(): void {
  $<HTMLSelectElement>('preset').innerHTML =
    '<option value="">(custom: no preset matches)</option>' + options(PRESETS.map((p) => p.name));
  $<HTMLSelectElement>('client').innerHTML = options([
    MODEL_CLIENT,
    ...CLIENT_MUTANTS.map((m) => m.name),
  ]);
  $<HTMLSelectElement>('policy').innerHTML = options(POLICIES);
  $<HTMLSelectElement>('server-runs').innerHTML =
    '<option value="">(as declared)</option>' + options(POLICIES);
  // Every field says what it is (a label) and what it does (a tooltip), from the same source
  // as the CLI's --help legend.
  const label = (k: string) => {
    const key = k as keyof WorldConfig;
    return `<abbr>${k}</abbr> ${esc(CONFIG_FIELD_LABEL[key])}`;
  };
  const help = (k: string) => esc(`${k}: ${CONFIG_FIELD_HELP[k as keyof WorldConfig]}`);
  const fields = NUMBERS.map(
    (k) =>
      `<label title="${help(k)}">${label(k)} <input id="cfg-${k}" data-key="${k}" type="text" title="${help(k)}" /></label>`,
  ).concat(
    Object.entries(CHOICES).map(
      ([k, vs]) =>
        // (An optional choice gets a "(default)" option: a world without it shows and reads
        // back as it was, not as a value it never named.)
        `<label title="${help(k)}">${label(k)} <select id="cfg-${k}" data-key="${k}" title="${help(k)}">${OPTIONAL_CHOICES.has(k) ? '<option value="">(default)</option>' : ''}${options(vs)}</select></label>`,
    ),
  );
  $('config-fields').innerHTML = fields.join('');
  $('scenarios').innerHTML = SEED_SCENARIOS.map(
    (s) => `<button id="scenario-${s.name}" data-scenario="${s.name}">${s.name}</button>`,
  ).join('');
}

/** Shows `spec`'s set-up in the form. */
function fillForm(spec: WorldSpec): void {
  const c = spec.cfg as unknown as Record<string, unknown>;
  for (const k of NUMBERS)
    $<HTMLInputElement>(`cfg-${k}`).value = c[k] === null ? 'inf' : String(c[k]);
  for (const k of Object.keys(CHOICES))
    $<HTMLSelectElement>(`cfg-${k}`).value = String(c[k] ?? (OPTIONAL_CHOICES.has(k) ? '' : false));
  $<HTMLSelectElement>('client').value = spec.client;
  $<HTMLSelectElement>('policy').value = spec.cfg.policy;
  $<HTMLSelectElement>('server-runs').value = spec.server ?? '';
  // The preset whose configuration this is (an incident loaded by name is its own preset).
  const same = PRESETS.find((p) => formatConfig(p.cfg) === formatConfig(spec.cfg));
  $<HTMLSelectElement>('preset').value = same?.name ?? '';
  $('preset-about').textContent = same?.about ?? '';
  $('client-about').textContent =
    CLIENT_MUTANTS.find((m) => m.name === spec.client)?.description ??
    "the model's client: the machine of docs/model.md";
}

/** The set-up the form says, or an error naming the field that is wrong. */
function readForm(): Omit<WorldSpec, 'commands'> {
  const parts = NUMBERS.map((k) => `${k}=${$<HTMLInputElement>(`cfg-${k}`).value.trim()}`);
  for (const k of Object.keys(CHOICES)) {
    const v = $<HTMLSelectElement>(`cfg-${k}`).value;
    // An optional field left at its default is not written (the world string reads the same).
    if (v !== '' || !OPTIONAL_CHOICES.has(k)) parts.push(`${k}=${v}`);
  }
  parts.push(`policy=${$<HTMLSelectElement>('policy').value}`);
  const cfg: WorldConfig = parseConfig(parts.join(','));
  const server = $<HTMLSelectElement>('server-runs').value;
  const client = $<HTMLSelectElement>('client').value;
  return server === '' || server === cfg.policy
    ? { cfg, client }
    : { cfg, client, server: server as PolicyName };
}

/**
 * Cells for the ring: D slots (or what is retained), floor and head marked, delivered green; the
 * client's cursor marked, and when the ids after it are gone from the ring, the hole between the
 * cursor and the floor drawn as one hatched cell (the seed's 42..66).
 */
function ringHtml(v: WorldView, delivered: ReadonlySet<number>): string {
  const s = v.server;
  const ids = s.retained;
  const cursor = v.client.cursor;
  const lead: string[] = [];
  if (cursor > 0 && !ids.includes(cursor) && (ids.length === 0 || cursor < ids[0]!)) {
    lead.push(
      `<span class="cell cursor" title="the client's cursor ${cursor}, no longer in the ring">cursor ${cursor}</span>`,
    );
    const first = ids[0] ?? s.head + 1;
    if (first > cursor + 1) {
      const hole = first - 1 === cursor + 1 ? `${cursor + 1}` : `${cursor + 1}..${first - 1}`;
      lead.push(
        `<span class="cell hole" title="events after the cursor that the ring no longer holds">${hole} gone</span>`,
      );
    }
  }
  const shown = ids.length > 96 ? [...ids.slice(0, 16), null, ...ids.slice(-64)] : ids;
  const cells = shown.map((id, i) => {
    if (id === null) return '<span class="cell gap">…</span>';
    const cls = ['cell'];
    if (i === 0) cls.push('floor');
    if (id === s.head) cls.push('head');
    if (delivered.has(id)) cls.push('delivered');
    if (id === cursor) cls.push('cursor');
    const what = id === cursor ? `event ${id}: the client's cursor` : `event ${id}`;
    return `<span class="${cls.join(' ')}" title="${what}">${id}</span>`;
  });
  cells.unshift(...lead);
  const free = s.depth === null ? 0 : Math.max(0, s.depth - ids.length);
  for (let k = 0; k < Math.min(free, 96); k++) cells.push('<span class="cell empty">·</span>');
  return cells.join('');
}

function socketHtml(v: WorldView): string {
  const cells = v.socket.frames.map((f) => `<span class="cell">${esc(f)}</span>`);
  for (let k = v.socket.frames.length; k < v.socket.capacity; k++)
    cells.push('<span class="cell empty">·</span>');
  return cells.join('');
}

const yes = (b: boolean, t: string, f: string): string => (b ? t : f);

const TIMELINE_CLASSES = ['num', 'time', 'actor', 'action', 'state', 'cursor'] as const;

/**
 * The timeline as a table: the action wraps at word boundaries, so the client state and the
 * cursor stay in view at any width (the CLI's fixed-width text needed 879 px; the box has 456
 * at 1440x900).
 */
function timelineHtml(lines: readonly string[]): string {
  const rows = timelineRows(lines).map((r) => {
    if (r.kind === 'note') return `<tr class="note"><td colspan="6">${esc(r.text)}</td></tr>`;
    const cell = r.kind === 'head' ? 'th' : 'td';
    return `<tr>${r.cells.map((c, i) => `<${cell} class="${TIMELINE_CLASSES[i]}">${esc(c)}</${cell}>`).join('')}</tr>`;
  });
  return `<table>${rows.join('')}</table>`;
}

/** Writes the world at the current step into the page. */
function render(): void {
  const w = worldAt(session);
  const v = viewOf(w, atEpilogue(session));
  const delivered = new Set(w.client.delivered.map((e) => e.id));
  $('state').textContent = v.state;
  $('decision').textContent =
    v.outcome === null ? 'no decision yet' : `last decision: ${v.outcome}: ${v.reason ?? ''}`;
  $('time').textContent = `virtual time ${v.time}`;
  const s = v.server;
  $('server-facts').textContent = serverFacts(s);
  $('ring').innerHTML = ringHtml(v, delivered);
  $('ring-facts').textContent =
    `ring of ${s.depth ?? 'unbounded'}: ${s.floor > s.head ? `holds nothing, head ${s.head}` : `floor ${s.floor}, head ${s.head}`}` +
    `; client's cursor ${v.client.cursor}` +
    `; evicted: ${s.evicted.length === 0 ? 'none' : `${s.evicted.length} (${s.evicted.slice(0, 3).join(', ')}${s.evicted.length > 3 ? ', …' : ''})`}` +
    '; green: delivered to the client';
  $('writer').textContent = s.writer.length === 0 ? 'empty' : s.writer.join(' ');
  $('socket').innerHTML = socketHtml(v);
  $('socket-facts').textContent =
    `${v.socket.frames.length} of ${v.socket.capacity} frames, connection ${yes(v.socket.up, 'up', 'down')} (ka: keepalive)`;
  const c = v.client;
  $('client-facts').textContent =
    `cursor ${c.cursor}, ${yes(c.connected, 'connected', 'not connected')}, application thread ${yes(c.appSaturated, 'saturated', 'free')}` +
    (c.done === null ? '' : `; ${c.done === 'complete' ? 'complete' : `failed: ${c.error ?? ''}`}`);
  $('delivered').textContent = `${c.deliveredCount} event(s): ${c.delivered || 'none'}`;
  $('claims').innerHTML = v.claims
    .map(
      (k) =>
        `<tr data-claim="${k.name}" title="${esc(k.text)}"><td>${k.name}</td>` +
        `<td class="status-${k.status === 'n/a' ? 'na' : k.status}">${k.status}</td><td>${esc(k.why)}</td></tr>`,
    )
    .join('');
  const lines = formatTimeline(w, shownCommands(session), {
    brief: $<HTMLInputElement>('brief').checked,
  });
  // One clock: when time passed after the last line (an Advance with nothing to record, the
  // epilogue's waiting), the timeline says where the clock now stands, as the header does.
  const lastT = w.timeline?.at(-1)?.t ?? 0;
  if (w.clock.now > lastT)
    lines.push(
      `        -- now ${formatTime(w.clock.now)}: nothing recorded since ${formatTime(lastT)}`,
    );
  const box = $('timeline');
  box.innerHTML = timelineHtml(lines);
  box.scrollTop = box.scrollHeight;
  renderSteps();
  $<HTMLInputElement>('world-string').value = formatWorldString(session.spec);
  $('claims-note').textContent = atEpilogue(session)
    ? 'Judged on the finished world, as the CLI judges it.'
    : 'Pending claims are judged when the world ends (Finish, or the last step of a loaded world); NoUnprovenAcceptance is judged as it goes.';
  // Last, once the text above it is in place: the diagram box is fitted from where it starts.
  void renderDiagram(v.state);
  if (!$('export-box').hidden) void renderExport();
}

/** The command list, the current step highlighted, and the step counter. */
function renderSteps(): void {
  const items = ['(created)', ...session.spec.commands.map(describeCommand)];
  if (session.finished) items.push('epilogue');
  $('commands').innerHTML = items
    .map((t, i) => {
      const inside = (session.obs ?? 0) > 0 && i === session.position + 1;
      const cls =
        i === session.position
          ? 'current'
          : inside
            ? 'inside'
            : i > session.position
              ? 'future'
              : '';
      return `<li data-step="${i}" class="${cls}">${esc(t)}</li>`;
    })
    .join('');
  const obs = session.obs ?? 0;
  const inside = items[session.position + 1];
  $('step').textContent =
    `step ${session.position} of ${stepCount(session)}` +
    (obs > 0 && inside !== undefined
      ? `, inside step ${session.position + 1} (${inside}): observation ${obs}`
      : '');
  // Scroll the list itself, never the page (scrollIntoView would move the whole window).
  const list = $('commands');
  const li = list.querySelector<HTMLElement>('li.current');
  if (li) list.scrollTop = Math.max(0, li.offsetTop - list.offsetTop - list.clientHeight / 2);
}

let diagramToken = 0;
/** The Mermaid source whose drawing the diagram box holds ('' when it holds none). */
let diagramShown = '';

/**
 * Drawings already made, by Mermaid source, the most recently used last (the machine's, the
 * export's and the trace panel's). Mermaid lays out the same source into the same SVG (only
 * the id it is given differs, and each box holds one at a time), so stepping back and forth
 * through a world, which keeps revisiting the same few states, draws each of them once.
 * Bounded: a learner who tries every client and state keeps at most this many (each some tens
 * of kB).
 */
const drawings = new Map<string, string>();
const DRAWINGS_KEPT = 48;

/** The SVG for `source`: a drawing made before, or Mermaid's, kept for next time. */
async function drawing(source: string, id: string): Promise<string> {
  let svg = drawings.get(source);
  if (svg === undefined) svg = (await mermaid.render(id, source)).svg;
  drawings.delete(source);
  drawings.set(source, svg);
  if (drawings.size > DRAWINGS_KEPT) drawings.delete(drawings.keys().next().value!);
  return svg;
}

/** The least height the diagram box is given when it is fitted into the window. */
const DIAGRAM_MIN_HEIGHT = 160;

/**
 * Ends the diagram box at the window's bottom edge when it starts in the first screenful, so
 * that the current state, centred in the box, is in view without the page scrolling (issue 39,
 * T5: at 1440x900 the box ran 270 px below the fold, and the stall's last state with it). A box
 * that starts lower (a narrow window, one column) keeps its 70vh and is scrolled to.
 */
function fitDiagramBox(box: HTMLElement): void {
  const top = box.getBoundingClientRect().top + window.scrollY;
  const room = window.innerHeight - top - 12;
  box.style.maxHeight =
    room >= DIAGRAM_MIN_HEIGHT ? `${Math.floor(Math.min(room, 0.7 * window.innerHeight))}px` : '';
}

/**
 * Re-renders the simplified diagram with `state` highlighted (the latest request wins). A step
 * that leaves the source unchanged (the same machine, the same state: most steps of a world)
 * keeps the drawing the box holds, and a source drawn before is not laid out again; the rest
 * (sizing, centring on the current state, the notes) is redone as always.
 */
async function renderDiagram(state: string): Promise<void> {
  const token = ++diagramToken;
  try {
    // The machine that runs: a client mutant's own, read against the model's, so that the
    // highlighted path passes only labels that are true for this run.
    const machine = subjectOf(session.spec).machine ?? clientMachine;
    const source = simpleDiagram(machine, { highlight: state, base: clientMachine });
    const box = $('diagram');
    if (source !== diagramShown) {
      const svg = await drawing(source, `machine-${token}`);
      if (token !== diagramToken) return;
      box.innerHTML = svg;
      diagramShown = source;
    }
    // Natural size (labels at the font size Mermaid laid them out with), scrolling inside its
    // box: scaled to the column, the labels were about 9 px.
    const el = box.querySelector('svg');
    const vb = el?.viewBox.baseVal;
    if (el && vb && vb.width > 0) {
      el.setAttribute('width', String(vb.width));
      el.setAttribute('height', String(vb.height));
      el.style.maxWidth = 'none';
      fitDiagramBox(box);
      const current = el.querySelector<SVGGraphicsElement>('g.current');
      if (current) {
        const c = current.getBoundingClientRect();
        const b = box.getBoundingClientRect();
        box.scrollLeft += c.left - b.left - b.width / 2 + c.width / 2;
        box.scrollTop += c.top - b.top - b.height / 2 + c.height / 2;
      }
    }
    box.dataset.machine = machine === clientMachine ? MODEL_CLIENT : session.spec.client;
    $('diagram-about').textContent =
      machine === clientMachine
        ? "The model's machine (docs/model.md)."
        : `The ${session.spec.client} machine: * marks an event whose guard it changed; transitions its guards rule out are not drawn.`;
    $('folded').innerHTML = foldedList(machine, clientMachine)
      .map((l) => `<li>${esc(l)}</li>`)
      .join('');
  } catch (e) {
    diagramShown = '';
    $('diagram').textContent = `diagram: ${(e as Error).message}`;
  }
}

let exportToken = 0;
/** The source whose drawing the export box holds ('' when it holds none). */
let exportShown = '';

/**
 * The timeline as a Mermaid sequence diagram: its source, and the diagram drawn (again only
 * when the source changed, as for the machine's diagram).
 */
async function renderExport(): Promise<void> {
  const token = ++exportToken;
  const text = sequenceDiagram(worldAt(session));
  $<HTMLTextAreaElement>('export-text').value = '```mermaid\n' + text + '\n```';
  if (text === exportShown) return;
  try {
    const svg = await drawing(text, `export-${token}`);
    if (token !== exportToken) return;
    $('export-diagram').innerHTML = svg;
    exportShown = text;
  } catch (e) {
    exportShown = '';
    $('export-diagram').textContent = `diagram: ${(e as Error).message}`;
  }
}

/**
 * Shows `next`; when its world cannot be run (a hand-made world past the firing limit), keeps
 * the session it had and says why under the commands, in one line.
 */
function go(next: Session): void {
  const prev = session;
  session = next;
  try {
    render();
    $('step-error').textContent = '';
  } catch (e) {
    session = prev;
    render();
    $('step-error').textContent = (e as Error).message;
  }
}

/** Applies a command from a button (a world that cannot be run is said by `go`). */
function command(c: WorldCommand): void {
  go(applyStep(session, c));
}

function loadInto(text: string): void {
  try {
    const loaded = loadText(text);
    $('load-error').textContent = '';
    fillForm(loaded.spec);
    go(newSession(loaded.spec, true));
  } catch (e) {
    $('load-error').textContent = (e as Error).message;
  }
}

function wire(): void {
  const on = (id: string, f: () => void) => $(id).addEventListener('click', f);
  window.addEventListener('resize', () => fitDiagramBox($('diagram')));
  on('cmd-emit', () => command({ kind: 'Emit', stream: 'tool' }));
  on('cmd-emit-other', () => command({ kind: 'Emit', stream: 'other' }));
  on('cmd-evict', () => command({ kind: 'Evict' }));
  on('cmd-restart', () => command({ kind: 'Restart' }));
  on('cmd-upgrade', () => command({ kind: 'Restart', era: '2026-07-28' }));
  on('cmd-saturate', () => command({ kind: 'SaturateApp' }));
  on('cmd-release', () => command({ kind: 'ReleaseApp' }));
  on('cmd-drain', () => command({ kind: 'Drain' }));
  on('cmd-advance', () => {
    const ms = Math.max(1, Math.floor(Number($<HTMLInputElement>('advance-ms').value) || 1));
    command({ kind: 'Advance', ms });
  });
  on('cmd-disconnect', () =>
    command({ kind: 'Disconnect', silent: $<HTMLInputElement>('disconnect-silent').checked }),
  );
  on('cmd-reconnect', () => command({ kind: 'Reconnect' }));
  on('cmd-finish', () => go(finishAt(session)));
  on('first', () => go(seek(session, 0)));
  // A command back from inside a step is that step's start.
  on('back', () =>
    go(seek(session, (session.obs ?? 0) > 0 ? session.position : session.position - 1)),
  );
  on('forward', () => go(seek(session, session.position + 1)));
  on('last', () => go(seek(session, stepCount(session))));
  on('obs-back', () => go(stepBack(session)));
  on('obs-forward', () => go(stepForward(session, 'observation')));
  on('next-transition', () => go(stepForward(session, 'transition')));
  on('copy-world', () => void copyWorld());
  on('load', () => loadInto($<HTMLTextAreaElement>('load-text').value));
  on('export', () => {
    $('export-box').hidden = !$('export-box').hidden;
    if (!$('export-box').hidden) void renderExport();
  });
  $('scenarios').addEventListener('click', (e) => {
    const name = (e.target as HTMLElement).dataset.scenario;
    if (name !== undefined) loadInto(name);
  });
  $('commands').addEventListener('click', (e) => {
    const step = (e.target as HTMLElement).dataset.step;
    if (step !== undefined) go(seek(session, Number(step)));
  });
  $('brief').addEventListener('change', render);
  $('preset').addEventListener('change', () => {
    const p = PRESETS.find((x) => x.name === $<HTMLSelectElement>('preset').value);
    if (!p) return;
    $('preset-about').textContent = p.about;
    // A preset is a whole configuration: the server runs what it declares.
    fillForm({ cfg: p.cfg, client: session.spec.client, commands: [] });
    setupChanged();
  });
  for (const id of ['client', 'policy', 'server-runs'])
    $(id).addEventListener('change', setupChanged);
  $('config-fields').addEventListener('change', setupChanged);
  document.addEventListener('keydown', (e) => {
    if ((e.target as HTMLElement).closest('input, textarea, select')) return;
    if (e.key === 'ArrowLeft') go(stepBack(session));
    if (e.key === 'ArrowRight') go(stepForward(session, 'observation'));
  });
}

/** Copies the world string; where the clipboard API is refused, selects it for Ctrl-C. */
async function copyWorld(): Promise<void> {
  const input = $<HTMLInputElement>('world-string');
  try {
    await navigator.clipboard.writeText(input.value);
    $('copy-status').textContent = 'copied';
  } catch {
    input.select();
    $('copy-status').textContent = document.execCommand('copy') ? 'copied' : 'selected: Ctrl-C';
  }
}

/**
 * The same commands, re-run under the set-up the form now says. A set-up whose world cannot be
 * run (`go` keeps the session it had) puts the form back to the set-up still shown.
 */
function setupChanged(): void {
  try {
    const setup = readForm();
    $('config-error').textContent = '';
    fillForm({ ...setup, commands: [] });
    const before = session;
    go(withSetup(session, setup));
    if (session === before) fillForm(session.spec);
  } catch (e) {
    $('config-error').textContent = (e as Error).message;
  }
}

mermaid.initialize({
  startOnLoad: false,
  securityLevel: 'strict',
  themeVariables: { fontSize: '15px' },
});
buildForm();
fillForm(session.spec);
wire();
render();
wireTracePanel({ $, esc, render: async (id, text) => ({ svg: await drawing(text, id) }) });
// Tests wait for this: the page is wired and has drawn its first world.
document.body.dataset.ready = 'yes';
