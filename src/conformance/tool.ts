/**
 * The test tool every implementation serves: `count` emits N numbered progress notifications,
 * then its result. Each message names the call (`tag`) and its number, so the recording client
 * can tell what arrived, what was lost, duplicated or reordered, and what belongs to another
 * call or session. Holds let the harness stop the tool at exact points instead of sleeping.
 */
import { NoAnswerError, type HarnessControl, type ToolControl } from './types.js';

/** The name of the test tool. */
export const TOOL_NAME = 'count';

/** Arguments of the test tool. */
export interface CountArgs {
  /** Names the call; echoed in every message. */
  tag: string;
  /** Number of progress notifications. */
  n: number;
  /** Message numbers to hold before emitting (`n + 1` holds the result). */
  holds?: number[];
  /** Bytes of padding per message (to create backpressure). */
  pad?: number;
  /** Pause before the result (ms). */
  pauseMs?: number;
  /**
   * Pause between messages (ms), and never two in one millisecond of `Date.now()`: after the
   * pause the tool also waits for the clock to pass the millisecond the last message was stored
   * in (a timer can fire early by the clock on a loaded machine), so a store whose ids are
   * timestamps keeps them in order.
   */
  gapMs?: number;
}

/** A progress notification's params, as the tool sends it. */
export interface ProgressParams {
  progressToken: string | number;
  progress: number;
  total: number;
  message: string;
  [key: string]: unknown;
}

/** The text of message `index` of call `tag` (padding after a space). */
export function messageText(tag: string, index: number, pad = 0): string {
  return pad > 0 ? `${tag}#${index} ${'x'.repeat(pad)}` : `${tag}#${index}`;
}

/** The text of the tool's result for call `tag`. */
export function resultText(tag: string, n: number): string {
  return `${tag}:result:${n}`;
}

/** Reads `tag` and `index` back from a progress message text; `null` if it is not one. */
export function parseMessageText(text: string): { tag: string; index: number } | null {
  const m = /^([A-Za-z0-9_-]+)#(\d+)(?: |$)/.exec(text);
  return m ? { tag: m[1]!, index: Number(m[2]) } : null;
}

/** Reads `tag` back from a result text; `null` if it is not one. */
export function parseResultText(text: string): { tag: string; n: number } | null {
  const m = /^([A-Za-z0-9_-]+):result:(\d+)$/.exec(text);
  return m ? { tag: m[1]!, n: Number(m[2]) } : null;
}

/** The tool's result, in the MCP `CallToolResult` shape. */
export interface CountResult {
  content: { type: 'text'; text: string }[];
  [key: string]: unknown;
}

/**
 * Resolves once `Date.now()` is past `since` (default: now), i.e. in a later millisecond: what
 * is stored after it gets a later timestamp than what was stored before `since` was read.
 * Waits in 1 ms timers, checking the clock after each (a timer alone can fire early by it).
 */
export async function nextMillisecond(since: number = Date.now()): Promise<void> {
  while (Date.now() <= since) await new Promise((r) => setTimeout(r, 1));
}

/**
 * Runs the tool: holds where asked, emits each numbered notification through `notify` (which
 * resolves once the transport has stored and written it), reports it to `control`, then returns
 * the result.
 */
export async function runCount(
  args: CountArgs,
  progressToken: string | number | undefined,
  notify: (params: ProgressParams) => Promise<void>,
  control: ToolControl,
): Promise<CountResult> {
  const holds = new Set(args.holds ?? []);
  const token = progressToken ?? `${args.tag}-progress`;
  /** When the last message was stored and written (its store read the clock before this). */
  let stored = 0;
  for (let i = 1; i <= args.n; i++) {
    if (holds.has(i)) await control.beforeEmit(args.tag, i);
    if (args.gapMs && i > 1) {
      await new Promise((r) => setTimeout(r, args.gapMs));
      await nextMillisecond(stored);
    }
    await notify({
      progressToken: token,
      progress: i,
      total: args.n,
      message: messageText(args.tag, i, args.pad ?? 0),
    });
    stored = Date.now();
    control.emitted(args.tag, i);
  }
  if (args.pauseMs) await new Promise((r) => setTimeout(r, args.pauseMs));
  if (holds.has(args.n + 1)) await control.beforeEmit(args.tag, args.n + 1);
  return { content: [{ type: 'text', text: resultText(args.tag, args.n) }] };
}

interface Deferred {
  promise: Promise<void>;
  resolve: () => void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/**
 * The harness side of {@link ToolControl}: release holds, await emissions. Every wait is
 * bounded; `releaseAll` frees a tool that a failed scenario left held.
 */
export class HoldControl implements ToolControl, HarnessControl {
  private readonly holds = new Map<string, Deferred>();
  private readonly emissions = new Map<string, Deferred>();
  private released = false;
  /** The highest index each call emitted ({@link status}). */
  private readonly highest = new Map<string, number>();
  /** Calls whose every hold, present and future, is released ({@link releaseTag}). */
  private readonly releasedTags = new Set<string>();

  constructor(private readonly holdTimeoutMs = 20_000) {}

  private hold(tag: string, index: number): Deferred {
    const key = `${tag}:${index}`;
    let d = this.holds.get(key);
    if (!d) {
      d = deferred();
      if (this.released || this.releasedTags.has(tag)) d.resolve();
      this.holds.set(key, d);
    }
    return d;
  }

  private emission(key: string): Deferred {
    let d = this.emissions.get(key);
    if (!d) {
      d = deferred();
      this.emissions.set(key, d);
    }
    return d;
  }

  /** {@inheritDoc ToolControl.beforeEmit} */
  async beforeEmit(tag: string, index: number): Promise<void> {
    const d = this.hold(tag, index);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((r) => {
      timer = setTimeout(r, this.holdTimeoutMs);
      timer.unref();
    });
    await Promise.race([d.promise, timeout]);
    clearTimeout(timer);
  }

  /** {@inheritDoc ToolControl.emitted} */
  emitted(tag: string, index: number): void {
    this.highest.set(tag, Math.max(this.highest.get(tag) ?? 0, index));
    this.emission(`${tag}:${index}`).resolve();
  }

  /**
   * The highest message index call `tag` has emitted so far (0 before any): what the
   * contract's `count_status` answers, for a server that serves the contract tools on a
   * `HoldControl` of its own.
   */
  status(tag: string): number {
    return this.highest.get(tag) ?? 0;
  }

  /** Lets call `tag` emit message `index` (or its result, at `n + 1`). */
  async release(tag: string, index: number): Promise<void> {
    this.hold(tag, index).resolve();
    return Promise.resolve();
  }

  /** Releases every hold, present and future, of call `tag`; other calls stay held. */
  async releaseTag(tag: string): Promise<void> {
    this.releasedTags.add(tag);
    for (const [key, d] of this.holds) if (key.startsWith(`${tag}:`)) d.resolve();
    return Promise.resolve();
  }

  /** Resolves once call `tag` has emitted message `index`; rejects after `timeoutMs`. */
  async waitEmitted(tag: string, index: number, timeoutMs = 5000): Promise<void> {
    const d = this.emission(`${tag}:${index}`);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new NoAnswerError(`tool call ${tag} did not emit message ${index} in ${timeoutMs} ms`),
          ),
        timeoutMs,
      );
    });
    try {
      await Promise.race([d.promise, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Releases every hold, present and future: the tool runs to completion. */
  async releaseAll(): Promise<void> {
    this.released = true;
    for (const d of this.holds.values()) d.resolve();
    return Promise.resolve();
  }
}

/**
 * The test tool contract as JSON Schemas of each tool's input: what a server in any language
 * serves (docs/conformance.md, "The test tool contract"). `count` is the tool under test;
 * `count_release` and `count_status` are the remote holds the harness uses when it cannot reach
 * into the server's process (`conformance --url`).
 */
export const TOOL_INPUT_SCHEMAS = {
  count: {
    type: 'object',
    properties: {
      tag: { type: 'string', pattern: '^[A-Za-z0-9_-]+$' },
      n: { type: 'integer', minimum: 0 },
      holds: { type: 'array', items: { type: 'integer' } },
      pad: { type: 'integer', minimum: 0 },
      pauseMs: { type: 'integer', minimum: 0 },
      gapMs: { type: 'integer', minimum: 0 },
    },
    required: ['tag', 'n'],
  },
  count_release: {
    type: 'object',
    properties: {
      tag: { type: 'string', pattern: '^[A-Za-z0-9_-]+$' },
      index: { type: 'integer', minimum: 0 },
    },
    required: ['tag'],
  },
  count_status: {
    type: 'object',
    properties: { tag: { type: 'string', pattern: '^[A-Za-z0-9_-]+$' } },
    required: ['tag'],
  },
} as const;

/**
 * The one line that tells a user how to serve the test tools, for a server that answered a call
 * of one of them with "not found" (misjudgment 6 of issue 27: the cell used to say only that the
 * stream ended).
 */
export const SERVE_CONTRACT_HINT =
  'serve the three tools of the test tool contract (docs/conformance.md, "The test tool ' +
  'contract"); on an SDK McpServer (1.x or 2.x): registerContractTools(server) from ' +
  'mcp-resumption/conformance';

/**
 * Whether a server's error answer to a call of `tool` says it does not have the tool (the SDK
 * servers: "Tool count not found"; others: "Unknown tool", "-32601").
 */
export function saysToolMissing(answer: string, tool: string): boolean {
  return (
    new RegExp(
      `\\b${tool}\\b.*not found|unknown tool|tool not found|not found.*\\b${tool}\\b`,
      'i',
    ).test(answer) || /-32601/.test(answer)
  );
}
