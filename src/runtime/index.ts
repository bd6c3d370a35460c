/**
 * The runtime components that go into production beside an MCP server or client:
 * `ContinuityEventStore`, an event store for the SDK's Streamable HTTP server transport whose
 * every resumption is provable or refused, and `continuityGuard`, a `fetch` for the SDK client
 * transport that raises {@link StreamResumptionError} instead of letting a gap through.
 *
 * @module mcp-resumption/runtime
 */
export * from './continuity-store.js';
// Named, not `*`: the guard's module also holds `guardOver`, which builds a guard over a core
// the caller made (the property suites' own, src/runtime-mutants/), which a deployed guard
// must not offer.
export {
  continuityGuard,
  defaultIdReader,
  idReaderFromPattern,
  GuardCapacityError,
  inspectGuard,
  type GuardState,
  type ContinuityGuardOptions,
  type GuardDecision,
  type GuardTraceLine,
  type IdReader,
} from './continuity-guard.js';
export * from './replay-fence.js';
export { StreamResumptionError, type FailedCall } from '../reference.js';
export {
  RESUMPTION_ERROR_CODE,
  resumptionFailureOf,
  type ResumptionErrorData,
} from './call-settlement.js';
export * from './reissue.js';
export { markReissue } from './reissue-mark.js';
export * from './task-event-log.js';
export * from './task-stream-handler.js';
export * from './task-stream-fetch.js';
// Named, not `*`: the guard's module also holds `guardOver`, which builds a guard over a
// runtime the caller made (the property suites' own, src/runtime-mutants/).
export {
  taskStreamGuard,
  TaskGuardCapacityError,
  TaskStreamLimitError,
  TaskStreamResumptionError,
  type TaskStreamGuard,
  type TaskStreamGuardOptions,
  type TaskStreamDecision,
  type TaskTraceLine,
} from './task-stream-guard.js';
