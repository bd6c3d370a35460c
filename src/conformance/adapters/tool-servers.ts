/**
 * The test tool (`count`) registered on an `McpServer` of each SDK generation. The tool itself
 * lives in ../tool.ts; the two SDKs differ only in how a handler reaches its progress token and
 * sends a notification, and in taking a raw Zod shape (v1) or a Zod object (v2).
 */
import { McpServer as McpServerV1 } from '@modelcontextprotocol/sdk/server/mcp.js';
import { McpServer as McpServerV2 } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { runCount, TOOL_NAME, type CountArgs, type ProgressParams } from '../tool.js';
import type { ToolControl } from '../types.js';

const DESCRIPTION = 'emits N numbered progress notifications, then its result';

/** The arguments of the `count` tool, as a Zod shape. */
const COUNT_SHAPE = {
  tag: z.string(),
  n: z.number().int().min(0),
  holds: z.array(z.number().int()).optional(),
  pad: z.number().int().min(0).optional(),
  pauseMs: z.number().int().min(0).optional(),
  gapMs: z.number().int().min(0).optional(),
};

/** A `@modelcontextprotocol/sdk` 1.x server with the test tool. */
export function v1ToolServer(name: string, version: string, control: ToolControl): McpServerV1 {
  const server = new McpServerV1({ name, version });
  server.registerTool(
    TOOL_NAME,
    { description: DESCRIPTION, inputSchema: COUNT_SHAPE },
    async (args, extra) =>
      runCount(
        args as CountArgs,
        extra._meta?.progressToken,
        (params: ProgressParams) =>
          extra.sendNotification({ method: 'notifications/progress', params }),
        control,
      ),
  );
  return server;
}

/** A `@modelcontextprotocol/server` 2.x server with the test tool. */
export function v2ToolServer(name: string, version: string, control: ToolControl): McpServerV2 {
  const server = new McpServerV2({ name, version });
  server.registerTool(
    TOOL_NAME,
    { description: DESCRIPTION, inputSchema: z.object(COUNT_SHAPE) },
    async (args, ctx) =>
      runCount(
        args as CountArgs,
        ctx.mcpReq._meta?.progressToken,
        (params: ProgressParams) => ctx.mcpReq.notify({ method: 'notifications/progress', params }),
        control,
      ),
  );
  return server;
}
