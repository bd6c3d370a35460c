/**
 * The bindings: which protocol's wire facts the machine is fed from. `mcp-sse` is the default.
 */
import type { Binding } from './binding.js';
import { a2a } from './a2a.js';
import { mcpSse } from './mcp-sse.js';
import { mcpTasks } from './mcp-tasks.js';

export * from './a2a.js';
export * from './binding.js';
export * from './mcp-sse.js';
export * from './mcp-tasks.js';

/** Every binding, the default first. */
export const BINDINGS: readonly Binding[] = [mcpSse, mcpTasks, a2a];

/** The names `--binding` and a trace's binding line accept. */
export const BINDING_NAMES: readonly string[] = BINDINGS.map((b) => b.name);

/** The binding of that name, or `undefined`. */
export function bindingNamed(name: string): Binding | undefined {
  return BINDINGS.find((b) => b.name === name);
}
