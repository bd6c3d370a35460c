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
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import {
  runCount,
  TOOL_INPUT_SCHEMAS,
  TOOL_NAME,
  type CountArgs,
  type CountResult,
  type ProgressParams,
} from './tool.js';
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

/**
 * Where the contract's holds live: what `count` waits on, `count_release` releases and
 * `count_status` reads. The default is one per process ({@link registerContractTools}); a server
 * that runs a process per session (a stdio↔HTTP gateway) shares {@link fileHolds} instead, since
 * the harness releases a call's hold from a session of its own.
 */
export interface ContractHoldStore extends ToolControl {
  /** A new call with `tag` starts (a finished call's record with that tag is dropped). */
  start(tag: string): void;
  /** Releases hold `index` of call `tag`, or every hold of it (present and future). */
  release(tag: string, index?: number): void;
  /** The highest index call `tag` emitted (0 before any). */
  status(tag: string): number;
}

/** Options of {@link registerContractTools}. */
export interface ContractToolsOptions {
  /** The Zod module to build schemas with (default: `import('zod')`, when it resolves). */
  z?: unknown;
  /** Where the holds live (default: one store for the process). */
  holds?: ContractHoldStore;
}

/** The holds of the contract's `count` calls, process-wide, by tag. */
class ContractHolds implements ContractHoldStore {
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

const text = (t: string) => ({ content: [{ type: 'text' as const, text: t }] });

/** How long a hold waits for its release at most (the contract: 20 s, then the call goes on). */
const HOLD_TIMEOUT_MS = 20_000;

/**
 * One set of holds for the process: the harness releases a hold of a call in one session from
 * its control session (another `McpServer` instance), as the contract says. A hold lasts at
 * most 20 s.
 */
const SHARED_HOLDS = new ContractHolds(HOLD_TIMEOUT_MS);

/** How often a hold in {@link fileHolds} looks for its release (ms). */
const FILE_POLL_MS = 5;

/**
 * Holds shared by every process that opens the same directory `dir`: for a server that runs one
 * process per session (a gateway in front of a stdio server), where `count` runs in one process
 * and the harness's `count_release` / `count_status` reach another. Each call `tag` has files in
 * `dir`: `<tag>.started`, `<tag>.emitted` (the highest index, written whole by rename),
 * `<tag>.r<index>` and `<tag>.all` (its releases). A hold looks for its release every 5 ms, at
 * most 20 s (`holdTimeoutMs`). Tags are the contract's (`^[A-Za-z0-9_-]+$`), safe as file names.
 */
export function fileHolds(dir: string, holdTimeoutMs = HOLD_TIMEOUT_MS): ContractHoldStore {
  mkdirSync(dir, { recursive: true });
  const file = (tag: string, what: string) => {
    if (!/^[A-Za-z0-9_-]+$/.test(tag))
      throw new Error(`fileHolds: tag ${JSON.stringify(tag)} is not [A-Za-z0-9_-]+`);
    return join(dir, `${tag}.${what}`);
  };
  const released = (tag: string, index: number) =>
    existsSync(file(tag, 'all')) || existsSync(file(tag, `r${index}`));
  const status = (tag: string) => {
    const path = file(tag, 'emitted');
    try {
      return Number(readFileSync(path, 'utf8')) || 0;
    } catch {
      return 0;
    }
  };
  return {
    start(tag) {
      if (existsSync(file(tag, 'started'))) {
        for (const what of ['started', 'emitted', 'all']) rmSync(file(tag, what), { force: true });
        // Releases of the finished call go with it (the contract keys them by tag).
        for (const f of listTagFiles(dir, tag)) rmSync(join(dir, f), { force: true });
      }
      writeFileSync(file(tag, 'started'), '');
    },
    async beforeEmit(tag, index) {
      const deadline = Date.now() + holdTimeoutMs;
      while (!released(tag, index) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, FILE_POLL_MS));
      }
    },
    emitted(tag, index) {
      if (index <= status(tag)) return;
      const tmp = file(tag, `emitted.${process.pid}.tmp`);
      writeFileSync(tmp, String(index));
      renameSync(tmp, file(tag, 'emitted'));
    },
    release(tag, index) {
      writeFileSync(file(tag, index === undefined ? 'all' : `r${index}`), '');
    },
    status,
  };
}

/** The release files `<tag>.r<index>` in `dir`. */
function listTagFiles(dir: string, tag: string): string[] {
  const re = new RegExp(`^${tag}\\.r\\d+$`);
  try {
    return readdirSync(dir).filter((f) => re.test(f));
  } catch {
    return [];
  }
}

/** How a tool handler of {@link contractToolHandlers} reaches its request. */
export interface ContractCallContext {
  /** The request's `params._meta.progressToken`, if any. */
  progressToken?: string | number;
  /** Sends a `notifications/progress` with these params on the call's stream. */
  notify(params: ProgressParams): Promise<void>;
}

/** The three tools' handlers, for a framework that takes tools through its own API. */
export interface ContractToolHandlers {
  /** `count`: N progress notifications through `ctx.notify`, then the result to return. */
  count(args: CountArgs, ctx: ContractCallContext): Promise<CountResult>;
  /** `count_release`: the result to return (`released`). */
  count_release(args: { tag: string; index?: number }): CountResult;
  /** `count_status`: the result to return (`<tag>:emitted:<k>`). */
  count_status(args: { tag: string }): CountResult;
}

/**
 * The handlers of `count`, `count_release` and `count_status`, for a server whose framework
 * registers tools its own way (decorators, a tool list, another SDK): register each under its
 * name (`TOOL_NAME`, `RELEASE_TOOL`, `STATUS_TOOL`) with its input schema
 * (`TOOL_INPUT_SCHEMAS`), and call the handler from the tool's body. `holds` as in
 * {@link registerContractTools} (default: one store for the process; {@link fileHolds} across
 * processes).
 */
export function contractToolHandlers(
  holds: ContractHoldStore = SHARED_HOLDS,
): ContractToolHandlers {
  return {
    count(args, ctx) {
      holds.start(args.tag);
      return runCount(args, ctx.progressToken, (p) => ctx.notify(p), holds);
    },
    count_release(args) {
      holds.release(args.tag, args.index);
      return text('released');
    },
    count_status(args) {
      return text(`${args.tag}:emitted:${holds.status(args.tag)}`);
    },
  };
}

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
  const handlers = contractToolHandlers(options.holds ?? SHARED_HOLDS);
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
      const { token, notify } = contextOf(extra);
      return handlers.count(args as CountArgs, {
        ...(token !== undefined ? { progressToken: token } : {}),
        notify: (params) => notify({ method: 'notifications/progress', params }),
      });
    },
  );
  register(
    RELEASE_TOOL,
    {
      description: 'releases hold `index` of call `tag` (every hold without index)',
      inputSchema: s.count_release,
    },
    (args) => handlers.count_release(args as { tag: string; index?: number }),
  );
  register(
    STATUS_TOOL,
    {
      description: 'the highest message index call `tag` has emitted so far',
      inputSchema: s.count_status,
    },
    (args) => handlers.count_status(args as { tag: string }),
  );
}
