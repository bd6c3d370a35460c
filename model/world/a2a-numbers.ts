/**
 * What both sides of the A2A world write: the generation the server gives each of the task's
 * updates, and a `StreamResponse` frame as the JSON-RPC binding sends it. Below both the server's
 * answers (./a2a-policies.ts) and the client's wire (./a2a-wire.ts), so that neither imports the
 * other.
 */
import type { WireFact } from '../bindings/binding.js';

/**
 * The generation the server gives the world's event `id` (0: the task's creation, generation 1):
 * one more than the id (the JS SDK's structure: the `Task` is generation 1, the k-th update k+1),
 * and, under `a2a-client-message`, one more from the second event on: a client message
 * (ADR-002's client-message timeline entry) was added to the task just before it, which advances
 * the generation without an event on any stream.
 */
export function generationOf(policy: string, id: number): number {
  return id + 1 + (policy === 'a2a-client-message' && id >= 2 ? 1 : 0);
}

/** The generation of the client message of `a2a-client-message` (`null` under other policies). */
export function messageGeneration(policy: string): number | null {
  return policy === 'a2a-client-message' ? generationOf(policy, 1) + 1 : null;
}

/** A `StreamResponse` frame as the JSON-RPC binding sends it (`data:` of one SSE event). */
export function frameFact(result: Record<string, unknown>): WireFact {
  return { type: 'a2a/frame', data: { jsonrpc: '2.0', id: 1, result } };
}
