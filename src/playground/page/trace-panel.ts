/**
 * The playground's trace panel: a learner picks a binding (MCP SSE streams, or SEP-2694 task
 * streams), loads one of its example traces or writes one, and sees what the oracle makes of
 * it: each reconnect's expected outcome, the rule, the verdict on the implementation's own
 * decision, and the trace drawn as a sequence diagram. The same checker `check` runs, bundled
 * into the page; nothing leaves the browser.
 */
import { BINDING_NAMES } from '../../../model/bindings/index.js';
import { checkTrace, traceLines } from '../../trace/check.js';
import {
  renderBreak,
  renderCursorAhead,
  renderReconnect,
  renderSummary,
  wordsOf,
} from '../../trace/render.js';
import { diagramOf } from '../../docs-gen/trace-diagram.js';
import { TRACE_EXAMPLES } from '../trace-examples.js';

/** What the panel needs from the page. */
export interface PanelDeps {
  $: <T extends HTMLElement = HTMLElement>(id: string) => T;
  esc: (s: string) => string;
  render: (id: string, text: string) => Promise<{ svg: string }>;
}

/** What each binding is, for the chooser's note. */
const ABOUT: Record<string, string> = {
  'mcp-sse':
    'MCP 2025-11-25 Streamable HTTP: SSE events with ids, reconnects with Last-Event-ID, HTTP statuses.',
  'mcp-tasks':
    'SEP-2694 (draft) task event streams: tasks/stream with after, notifications/tasks/event with seq, events_gone.',
  a2a: 'A2A task streams: SendStreamingMessage, SubscribeToTask, StreamResponse frames; the era (1.0, dev-1.1 generation, #1986 cursor) is on the binding line.',
};

/** Wires the panel; call once, after the page's elements exist. */
export function wireTracePanel({ $, esc, render }: PanelDeps): void {
  const binding = $<HTMLSelectElement>('trace-binding');
  const example = $<HTMLSelectElement>('trace-example');
  const text = $<HTMLTextAreaElement>('trace-text');
  binding.innerHTML = BINDING_NAMES.map((b) => `<option value="${b}">${b}</option>`).join('');
  let token = 0;

  const fillExamples = () => {
    const mine = TRACE_EXAMPLES.filter((e) => e.binding === binding.value);
    example.innerHTML = mine
      .map((e) => `<option value="${esc(e.name)}">${esc(e.title)}</option>`)
      .join('');
    $('trace-binding-about').textContent = ABOUT[binding.value] ?? '';
  };
  const loadExample = () => {
    const e = TRACE_EXAMPLES.find((x) => x.name === example.value);
    if (e !== undefined) text.value = e.text;
  };

  const check = async () => {
    const mine = ++token;
    const lines = traceLines(text.value);
    $('trace-error').textContent = '';
    try {
      const report = await checkTrace(lines, { binding: binding.value });
      if (mine !== token) return;
      // In the trace's words: a task trace speaks of after, seq and tasks.
      const words = wordsOf(binding.value);
      const parts = [
        ...report.reconnects.map((r) => renderReconnect(r, words)),
        ...report.breaks.map((b) => renderBreak(b, words)),
        ...report.cursorAhead.map((c) => renderCursorAhead(c, words)),
        renderSummary(report.summary, report.exitCode, words),
      ];
      $('trace-report').textContent = parts.join('\n');
      $('trace-exit').textContent = `check would exit ${report.exitCode}`;
      const { svg } = await render(`trace-${mine}`, diagramOf(lines, report));
      if (mine === token) $('trace-diagram').innerHTML = svg;
    } catch (e) {
      if (mine !== token) return;
      $('trace-report').textContent = '';
      $('trace-diagram').innerHTML = '';
      $('trace-exit').textContent = 'check would exit 2 (bad input)';
      $('trace-error').textContent = (e as Error).message;
    }
  };

  binding.addEventListener('change', () => {
    fillExamples();
    loadExample();
    void check();
  });
  example.addEventListener('change', () => {
    loadExample();
    void check();
  });
  $('trace-check').addEventListener('click', () => void check());
  fillExamples();
  loadExample();
  void check();
}
