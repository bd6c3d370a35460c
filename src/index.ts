/**
 * mcp-resumption: the library. The seed's reference function, the machine-backed classifier,
 * and the tools that apply the model to real implementations.
 *
 * @module
 */
export * from './reference.js';
export * from './classify.js';
export * from './diagram.js';
export * from './cli-kit.js';
export * from './conformance/continuity-store.js';
export * from './conformance/continuity-guard.js';
export * from '../model/index.js';
export * from './trace/index.js';
