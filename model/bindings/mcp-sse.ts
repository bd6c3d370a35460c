/**
 * `mcp-sse`: MCP's Streamable HTTP transport with resumable SSE streams (2025-03-26 to
 * 2025-11-25), the default binding. Its wire facts are the native lines of the trace format:
 * an SSE event with an id is `EVENT`, a GET with `Last-Event-ID` is `RECONNECT`, its status is
 * `RESPONSE` (404 and 410: session-lost, rule 2). The mapping line by line is `observationOf`
 * in src/trace/checker.ts, and docs/trace-format.md maps SSE bytes to lines.
 */
import type { Binding } from './binding.js';

/**
 * What a 405 to a resume means (mixed eras): a server that speaks only MCP 2026-07-28 answers
 * every GET 405 and ignores `Last-Event-ID`; the SDKs read it as "no SSE stream offered" and
 * leave the call waiting. The machine's rule 3 already fails it; the report names the case.
 */
const ERA_405 =
  ': the server offers no resumable stream (a server upgraded to MCP 2026-07-28 answers every GET 405 and ignores Last-Event-ID), so the request is lost: re-issue it, do not wait';

/** The SSE binding: the trace format's own lines. */
export const mcpSse: Binding = {
  name: 'mcp-sse',
  summary: 'MCP Streamable HTTP, resumable SSE streams with Last-Event-ID (MCP 2025-11-25)',
  lineTypes: [],
  phrase: (code, text) =>
    code === 'bad-status' && /status=405$/.test(text) ? text + ERA_405 : text,
};
