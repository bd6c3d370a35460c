/**
 * The implementations the matrix runs, each a factory of fresh adapters.
 */
import type { ImplementationEntry } from './matrix.js';
import { mcpProxyAdapter } from '../adapters/mcp-proxy.js';
import { sdkV1Adapter, sdkV2Adapter } from '../adapters/sdk.js';

/** Every server implementation of the matrix, in row order. */
export const SERVER_IMPLEMENTATIONS: readonly ImplementationEntry[] = [
  { name: 'sdk-v1+example', make: () => sdkV1Adapter('example') },
  { name: 'sdk-v1+ring', make: () => sdkV1Adapter('ring') },
  { name: 'sdk-v1+continuity', make: () => sdkV1Adapter('continuity') },
  {
    name: 'sdk-v1@2025-03-26+continuity',
    make: () => sdkV1Adapter('continuity', '2025-03-26'),
  },
  { name: 'server-v2+example', make: () => sdkV2Adapter('example') },
  { name: 'server-v2+ring', make: () => sdkV2Adapter('ring') },
  { name: 'server-v2+continuity', make: () => sdkV2Adapter('continuity') },
  { name: 'sdk-v1+nofence', make: () => sdkV1Adapter('continuity-nofence') },
  { name: 'server-v2+nofence', make: () => sdkV2Adapter('continuity-nofence') },
  { name: 'mcp-proxy', make: () => mcpProxyAdapter() },
];
