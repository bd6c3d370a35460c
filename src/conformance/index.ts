/**
 * The conformance kit: run the harness's resumption scenarios against your own MCP server.
 * An implementation is an {@link ImplementationAdapter} (start, restart, evict, cut
 * connections, stop, and its {@link IdCodec}); it serves the test tool {@link TOOL_NAME}
 * (`runCount` does the work in a TypeScript server); {@link runCell} runs one of the
 * {@link SCENARIOS} against a fresh instance and judges the cell, and the renderers print it.
 * docs/conformance.md has a complete example. A server in another process or language is
 * tested in black-box mode ({@link urlAdapter}, `conformance --url`), through the tool
 * contract {@link TOOL_INPUT_SCHEMAS}. This entry needs, besides the package's own
 * dependencies, only what your adapter imports (for example `@modelcontextprotocol/sdk`).
 *
 * @module mcp-resumption/conformance
 */
export {
  runCell,
  runMatrix,
  tally,
  type ImplementationEntry,
  type JudgedCell,
  type MatrixOptions,
  type OracleView,
} from './rows/matrix.js';
export * from './scenarios/index.js';
export * from './tool.js';
export * from './types.js';
export * from './rendering/render.js';
export { RecordingClient, TraceRecorder, decodeData } from './recording/recorder.js';
export { CallFollower } from './recording/call-follower.js';
export type { Decoded } from './recording/recorder.js';
export type { ReadStop } from './recording/call-follower.js';
export { MAX_BODY_BYTES, SseStream, request } from './recording/sse-client.js';
export {
  AdapterModuleError,
  loadAdapterModule,
  runCustomConformance,
  scenarioNames,
  type CustomConformanceOptions,
} from './rows/custom.js';
export { RemoteControl, RELEASE_TOOL, STATUS_TOOL, parseStatusText } from './remote-control.js';
export { ReplayPause } from './replay-window.js';
export {
  checkLoopbackUrl,
  runHook,
  urlAdapter,
  waitForPort,
  type HookRun,
  type UrlAdapterOptions,
} from './adapters/url.js';
export { PROTOCOL_VERSION, PROTOCOL_VERSIONS } from './recording/recorder.js';
export type { HttpAnswer, SseItem, SseRead, StreamLimits } from './recording/sse-client.js';
export {
  serveFetch,
  type FetchHandler,
  type FetchHost,
  type ServeFetchOptions,
} from './fetch-host.js';
export * from './hostile-activity.js';
export * from './hostile-wire.js';
export * from './hostile-server.js';
export {
  CLIENT_FIX,
  FAILING_CLIENT_VERDICTS,
  judgeClient,
  readClientOutput,
  renderClientCells,
  runClientCommand,
  runClientCommands,
  STORM_PER_SECOND,
  type ClientCell,
  type ClientCommandOptions,
  type ClientCommandRow,
  type ClientOutput,
  type ClientVerdict,
  type JudgeContext,
} from './rows/client-command.js';
export {
  contractToolHandlers,
  fileHolds,
  registerContractTools,
  type ContractCallContext,
  type ContractHoldStore,
  type ContractToolHandlers,
  type ContractToolsOptions,
  type ToolRegistrar,
} from './contract-tools.js';
export { sdkClientRows } from './rows/sdk-contract-client.js';
