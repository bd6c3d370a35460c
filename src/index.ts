/**
 * mcp-resumption: the library. The seed's reference function and the machine-backed
 * classifier, the trace oracle (`checkTrace`, `TraceChecker`), and the runtime components
 * (`ContinuityEventStore`, `continuityGuard`, also in `mcp-resumption/runtime`). The formal
 * model is `mcp-resumption/model`; the conformance kit is `mcp-resumption/conformance`.
 *
 * @module mcp-resumption
 */
export * from './reference.js';
export * from './classify.js';
export * from './runtime/index.js';
export { checkTrace } from './trace/check.js';
export { IDLESS_NOTE, TraceChecker, type CheckOptions, type CheckSink } from './trace/checker.js';
export type { Counts, JudgeShared } from './trace/judge.js';
export type { Engine, EngineName, MachineState } from './trace/engine.js';
export {
  compileIdPattern,
  parseTraceLine,
  TRACE_LINE_TYPES,
  TraceInputError,
  type IdPattern,
  type TimedTraceLine,
  type TraceLine,
  type TraceLineType,
} from './trace/format.js';
export {
  isViolation,
  VERDICTS,
  type BreakReport,
  type CheckReport,
  type CheckSummary,
  type CursorAheadReport,
  type DroppedCallReport,
  type ReconnectReport,
  type Verdict,
} from './trace/report.js';
