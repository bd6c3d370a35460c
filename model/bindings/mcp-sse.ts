/**
 * `mcp-sse`: MCP's Streamable HTTP transport with resumable SSE streams (2025-03-26 to
 * 2025-11-25), the default binding. Its wire facts are the native lines of the trace format:
 * an SSE event with an id is `EVENT`, a GET with `Last-Event-ID` is `RECONNECT`, its status is
 * `RESPONSE` (404 and 410: session-lost, rule 2). The mapping line by line is `observationOf`
 * in src/trace/checker.ts, and docs/trace-format.md maps SSE bytes to lines.
 */
import type { Binding } from './binding.js';

/** The SSE binding: the trace format's own lines. */
export const mcpSse: Binding = {
  name: 'mcp-sse',
  summary: 'MCP Streamable HTTP, resumable SSE streams with Last-Event-ID (MCP 2025-11-25)',
  lineTypes: [],
};
