/**
 * The trace oracle: format v1 parsing, the streaming checker that decides with the client
 * machine, and its report.
 *
 * @module
 */
export * from './format.js';
export * from './report.js';
export * from './checker.js';
export * from './engine.js';
export * from './check.js';
