/**
 * The test tool's holds across a process boundary: for a server the harness cannot reach into
 * (`conformance --url`, any language), releasing a hold and asking what the tool emitted are
 * themselves tool calls, `count_release` and `count_status`, made on a session of their own.
 * docs/conformance.md ("The test tool contract") states what the server must do.
 */
import { RecordingClient } from './recording/recorder.js';
import { ControlChannelError, HarnessError, type HarnessControl, NoAnswerError } from './types.js';

/** The tool that releases a hold (`{tag, index}`) or every hold of a call (`{tag}`). */
export const RELEASE_TOOL = 'count_release';
/** The tool that reports the highest message a call emitted (`{tag}` → `tag:emitted:k`). */
export const STATUS_TOOL = 'count_status';

/** How often `waitEmitted` asks (ms). */
const POLL_MS = 5;

/** Reads `k` out of `tag:emitted:k`; `null` when the text is not of that form. */
export function parseStatusText(tag: string, text: string): number | null {
  const m = /^(.+):emitted:(\d+)$/.exec(text);
  return m && m[1] === tag ? Number(m[2]) : null;
}

/** {@link HarnessControl} over MCP tool calls to the server under test. */
export class RemoteControl implements HarnessControl {
  private client: RecordingClient | undefined;
  private readonly tags = new Set<string>();

  /**
   * @param url The server's MCP endpoint.
   * @param timeoutMs Bound on each control call (ms).
   * @param protocolVersion The version to ask for in the control session's `initialize`.
   */
  constructor(
    private readonly url: string,
    private readonly timeoutMs: number,
    private readonly protocolVersion: string,
  ) {}

  /** Records that the cell uses call `tag`, so that {@link releaseAll} frees it. */
  track(tag: string): void {
    this.tags.add(tag);
  }

  /**
   * The control session, opened on first use and re-opened after a restart (404). Its request
   * ids are strings of its own (`ctl-<nonce>-<n>`), never the small integers every scenario
   * client uses, so a server that routes answers by JSON-RPC id across sessions cannot mix
   * the two up; an answer that does not carry the request's id (or does not come) is a
   * {@link ControlChannelError}: the cell is `error: control channel`, not a verdict.
   */
  private async call(name: string, args: Record<string, unknown>): Promise<string> {
    try {
      for (let attempt = 0; ; attempt++) {
        if (!this.client) {
          const c = new RecordingClient(this.url, this.timeoutMs);
          c.requestedVersion = this.protocolVersion;
          c.idPrefix = `ctl-${Math.random().toString(36).slice(2, 8)}-`;
          await c.initialize();
          this.client = c;
        }
        try {
          return await this.client.callToolText(name, args);
        } catch (e) {
          // A restart loses the control session too: open a new one, once.
          if (attempt === 0 && e instanceof HarnessError && e.status === 404) {
            this.client = undefined;
            continue;
          }
          throw e;
        }
      }
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      throw new ControlChannelError(`${name} ${JSON.stringify(args)}: ${message}`);
    }
  }

  async release(tag: string, index: number): Promise<void> {
    this.track(tag);
    await this.call(RELEASE_TOOL, { tag, index });
  }

  /** {@inheritDoc HarnessControl.status} */
  async status(tag: string): Promise<number> {
    const text = await this.call(STATUS_TOOL, { tag });
    const k = parseStatusText(tag, text);
    if (k === null) {
      throw new ControlChannelError(
        `${STATUS_TOOL} answered ${JSON.stringify(text.slice(0, 80))}, not "${tag}:emitted:<k>"`,
      );
    }
    return k;
  }

  async waitEmitted(tag: string, index: number, timeoutMs = 5000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const k = await this.status(tag);
      if (k >= index) return;
      if (Date.now() >= deadline) {
        throw new NoAnswerError(
          `tool call ${tag} did not emit message ${index} in ${timeoutMs} ms (${STATUS_TOOL}: ${k})`,
        );
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }

  async releaseTag(tag: string): Promise<void> {
    this.track(tag);
    await this.call(RELEASE_TOOL, { tag });
  }

  /** Releases every hold of every call the cell used; best effort (the server may be gone). */
  async releaseAll(): Promise<void> {
    for (const tag of this.tags) {
      try {
        await this.call(RELEASE_TOOL, { tag });
      } catch {
        // the server is down or restarted: its holds went with it
      }
    }
  }

  /** Ends the control session (DELETE), best effort. */
  async close(): Promise<void> {
    await this.client?.close().catch(() => {});
    this.client = undefined;
  }
}
