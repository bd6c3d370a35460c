/**
 * The runtime components that go into production beside an MCP server or client:
 * `ContinuityEventStore`, an event store for the SDK's Streamable HTTP server transport whose
 * every resumption is provable or refused, and `continuityGuard`, a `fetch` for the SDK client
 * transport that raises {@link StreamResumptionError} instead of letting a gap through.
 *
 * @module mcp-resumption/runtime
 */
export * from './continuity-store.js';
export * from './continuity-guard.js';
export * from './replay-fence.js';
export { StreamResumptionError } from '../reference.js';
export * from './guard-mutants.js';
