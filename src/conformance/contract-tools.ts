/**
 * The three tools of the test tool contract (`count`, `count_release`, `count_status`;
 * docs/conformance.md, "The test tool contract") registered on an existing SDK `McpServer`, 1.x
 * (`@modelcontextprotocol/sdk`) or 2.x (`@modelcontextprotocol/server`), so that a server can be
 * tested through `conformance --url` with one line:
 *
 * ```ts
 * await registerContractTools(server);
 * ```
 *
 * Holds are process-wide, keyed by tag (a release may come before its hold, from another
 * session), as the contract says. The input schemas are Zod objects when `zod` can be imported
 * (SDK 1.x depends on it, and needs it; Zod 4 also serves 2.x), else a hand-written Standard
 * Schema with its JSON Schema (enough for 2.x).
 */
import { runCount, TOOL_INPUT_SCHEMAS, TOOL_NAME, type CountArgs } from './tool.js';
import { RELEASE_TOOL, STATUS_TOOL } from './remote-control.js';
import type { ToolControl } from './types.js';

/** What `registerContractTools` needs of a server: the SDK's `registerTool` (1.x or 2.x). */
export interface ToolRegistrar {
  /** Registers one tool with its description, input schema and handler. */
  registerTool(
    name: string,
    config: { description?: string; inputSchema?: unknown },
    // Both SDKs call the handler with the arguments and their request context.
    handler: (args: never, extra: never) => unknown,
  ): unknown;
}

/** Options of {@link registerContractTools}. */
export interface ContractToolsOptions {
  /** The Zod module to build schemas with (default: `import('zod')`, when it resolves). */
  z?: unknown;
}

/** The holds of the contract's `count` calls, process-wide, by tag. */
class ContractHolds implements ToolControl {
  private readonly calls = new Map<
    string,
    {
      started: boolean;
      emitted: number;
      released: Set<number>;
      all: boolean;
      waiters: Set<() => void>;
    }
  >();
  constructor(private readonly holdTimeoutMs: number) {}

  private record(tag: string) {
    let r = this.calls.get(tag);
    if (!r) {
      r = { started: false, emitted: 0, released: new Set(), all: false, waiters: new Set() };
      this.calls.set(tag, r);
    }
    return r;
  }

  /** A new call with `tag`: a record another call used is replaced, a fresh one adopted. */
  start(tag: string): void {
    const r = this.calls.get(tag);
    if (r?.started) this.calls.delete(tag);
    this.record(tag).started = true;
  }

  beforeEmit(tag: string, index: number): Promise<void> {
    const r = this.record(tag);
    if (r.all || r.released.has(index)) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        if (!r.all && !r.released.has(index)) return;
        clearTimeout(timer);
        r.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(() => {
        r.waiters.delete(done);
        resolve();
      }, this.holdTimeoutMs);
      timer.unref?.();
      r.waiters.add(done);
    });
  }

  emitted(tag: string, index: number): void {
    const r = this.record(tag);
    r.emitted = Math.max(r.emitted, index);
  }

  release(tag: string, index?: number): void {
    const r = this.record(tag);
    if (index === undefined) r.all = true;
    else r.released.add(index);
    for (const w of [...r.waiters]) w();
  }

  status(tag: string): number {
    return this.calls.get(tag)?.emitted ?? 0;
  }
}

/**
 * One set of holds for the process: the harness releases a hold of a call in one session from
 * its control session (another `McpServer` instance), as the contract says. A hold lasts at
 * most 20 s.
 */
const SHARED_HOLDS = new ContractHolds(20_000);

type JsonSchema = (typeof TOOL_INPUT_SCHEMAS)[keyof typeof TOOL_INPUT_SCHEMAS];

/** A Standard Schema (with JSON Schema) that accepts what the JSON Schema describes. */
function standardSchema(json: JsonSchema): unknown {
  const validate = (value: unknown) => {
    const v = value as Record<string, unknown> | null;
    const issues: { message: string }[] = [];
    if (typeof v !== 'object' || v === null) issues.push({ message: 'expected an object' });
    else {
      for (const k of json.required) if (!(k in v)) issues.push({ message: `${k} is required` });
      if ('tag' in v && (typeof v.tag !== 'string' || !/^[A-Za-z0-9_-]+$/.test(v.tag)))
        issues.push({ message: 'tag must match ^[A-Za-z0-9_-]+$' });
      for (const k of ['n', 'index', 'pad', 'pauseMs', 'gapMs']) {
        if (k in v && !(Number.isSafeInteger(v[k]) && (v[k] as number) >= 0))
          issues.push({ message: `${k} must be an integer >= 0` });
      }
      if ('holds' in v && !(Array.isArray(v.holds) && v.holds.every(Number.isSafeInteger)))
        issues.push({ message: 'holds must be an array of integers' });
    }
    return issues.length ? { issues } : { value };
  };
  return {
    '~standard': {
      version: 1,
      vendor: 'mcp-resumption',
      validate,
      jsonSchema: { input: () => json, output: () => json },
    },
  };
}

interface ZodLike {
  string(): unknown;
  number(): { int(): { min(n: number): unknown } };
  array(x: unknown): unknown;
  object(shape: Record<string, unknown>): unknown;
}

/** The tools' input schemas: Zod objects when Zod is there, else Standard Schemas. */
function schemas(z: ZodLike | null): Record<keyof typeof TOOL_INPUT_SCHEMAS, unknown> {
  if (z === null) {
    return {
      count: standardSchema(TOOL_INPUT_SCHEMAS.count),
      count_release: standardSchema(TOOL_INPUT_SCHEMAS.count_release),
      count_status: standardSchema(TOOL_INPUT_SCHEMAS.count_status),
    };
  }
  const opt = (s: unknown) => (s as { optional(): unknown }).optional();
  const tag = (z.string() as { regex(r: RegExp): unknown }).regex(/^[A-Za-z0-9_-]+$/);
  const nat = () => z.number().int().min(0);
  return {
    count: z.object({
      tag,
      n: nat(),
      holds: opt(z.array(z.number().int())),
      pad: opt(nat()),
      pauseMs: opt(nat()),
      gapMs: opt(nat()),
    }),
    count_release: z.object({ tag, index: opt(nat()) }),
    count_status: z.object({ tag }),
  };
}

/** The request context of either SDK: its progress token and how to send a notification. */
function contextOf(extra: unknown): {
  token: string | number | undefined;
  notify: (n: { method: string; params: unknown }) => Promise<void>;
} {
  const v2 = (
    extra as {
      mcpReq?: { _meta?: { progressToken?: string | number }; notify(n: unknown): Promise<void> };
    }
  ).mcpReq;
  if (v2) return { token: v2._meta?.progressToken, notify: (n) => v2.notify(n) };
  const v1 = extra as {
    _meta?: { progressToken?: string | number };
    sendNotification(n: unknown): Promise<void>;
  };
  return { token: v1._meta?.progressToken, notify: (n) => v1.sendNotification(n) };
}

const text = (t: string) => ({ content: [{ type: 'text' as const, text: t }] });

/**
 * Registers `count`, `count_release` and `count_status` on `server` (an SDK 1.x or 2.x
 * `McpServer`). Resolves once they are registered.
 */
export async function registerContractTools(
  server: ToolRegistrar,
  options: ContractToolsOptions = {},
): Promise<void> {
  const z =
    (options.z as ZodLike | undefined) ??
    ((await import('zod').then(
      (m: { z?: unknown }) => (m.z ?? m) as ZodLike,
      () => null,
    )) as ZodLike | null);
  const s = schemas(z);
  const holds = SHARED_HOLDS;
  const register = server.registerTool.bind(server) as (
    name: string,
    config: { description?: string; inputSchema?: unknown },
    handler: (args: unknown, extra: unknown) => unknown,
  ) => unknown;
  register(
    TOOL_NAME,
    {
      description: 'emits N numbered progress notifications, then its result',
      inputSchema: s.count,
    },
    async (args, extra) => {
      const a = args as CountArgs;
      const { token, notify } = contextOf(extra);
      holds.start(a.tag);
      return runCount(
        a,
        token,
        (params) => notify({ method: 'notifications/progress', params }),
        holds,
      );
    },
  );
  register(
    RELEASE_TOOL,
    {
      description: 'releases hold `index` of call `tag` (every hold without index)',
      inputSchema: s.count_release,
    },
    (args) => {
      const a = args as { tag: string; index?: number };
      holds.release(a.tag, a.index);
      return text('released');
    },
  );
  register(
    STATUS_TOOL,
    {
      description: 'the highest message index call `tag` has emitted so far',
      inputSchema: s.count_status,
    },
    (args) => {
      const a = args as { tag: string };
      return text(`${a.tag}:emitted:${holds.status(a.tag)}`);
    },
  );
}
