/**
 * The formal model: the client machine (the decision boundary), its observations, guards and
 * outcomes, and the mutant zoo beside it.
 *
 * @module mcp-resumption/model
 */
export * from './observations.js';
export * from './outcomes.js';
export * from './context.js';
export * from './guards.js';
export * from './reasons.js';
export * from './rules.js';
export * from './client-machine.js';
export * from './run.js';
export * from './transitions.js';
export * from './describe.js';
export * from './seed-variants.js';
export * from './mutants/machine-mutants.js';
export * from './world/index.js';
export * from './claims/index.js';
export * from './mutants/client-mutants.js';
export * from './mutants/server-mutants.js';
export * from './mutants/kill-table.js';
export * from './bindings/index.js';
export * from './mutants/binding-mutants.js';
