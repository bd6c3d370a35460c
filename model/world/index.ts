/**
 * The simulated world around the client machine: configuration, server, network, client,
 * ground truth, commands, generators, properties and counterexamples.
 *
 * @module
 */
export * from './arbitraries.js';
export * from './clock.js';
export {
  canRead,
  clientState,
  type CallEnd,
  type ClientBehaviour,
  type ClientPort,
  type ClientState,
} from './client.js';
export { applyCommand, describeCommand, quiesce, type WorldCommand } from './commands.js';
export * from './config.js';
export * from './counterexample.js';
export * from './frames.js';
export * from './ground-truth.js';
export { stepCache, type MemoEntry, type StepCache } from './machine-cache.js';
export * from './policies.js';
export { type PollMark } from './world-state.js';
export * from './property.js';
export * from './scenarios.js';
export { floorOf, type ServerState } from './server.js';
export * from './timeline.js';
export * from './timeline-fold.js';
export * from './sequence-diagram.js';
export { ClientWire, TASK_WRITER, type AnsweredResponse, type WireWriter } from './task-wire.js';
export { answerA2a, A2A_ERROR_STATUS, GENERATIONS_GONE, snapshotFact } from './a2a-policies.js';
export { a2aWriter } from './a2a-wire.js';
export { frameFact, generationOf, messageGeneration } from './a2a-numbers.js';
export * from './validity.js';
export { advance, createWorld, type NetworkState, type World, type WorldOptions } from './world.js';
