/**
 * The A2A rows' recording client: plain JSON-RPC over `fetch` (A2A 1.0, `A2A-Version: 1.0`), no
 * SDK client, so that what is recorded is what came over the wire. A stream call
 * (`SendStreamingMessage`, `SubscribeToTask`) is read frame by frame (`data:` lines parsed with
 * `eventsource-parser`); an answer that is not an event stream is one JSON body. Errors are
 * classified on the JSON-RPC body, never on the HTTP status: the SDK sends them with HTTP 200.
 */
import { createParser } from 'eventsource-parser';
import { CALL_HEADER } from './store.js';

/** One thing a call received, in order. */
export type Frame =
  | {
      kind: 'task' | 'statusUpdate' | 'artifactUpdate' | 'message';
      value: Record<string, unknown>;
      /** The JSON-RPC message as received (a trace's `a2a/frame` data). */
      data: unknown;
    }
  | { kind: 'error'; status: number; code: number; message: string; data: unknown }
  | { kind: 'end' }
  | { kind: 'broken'; why: string };

let nextId = 1;

/** One call: its frames as they come, and a cut (the client drops the connection). */
export class Call {
  readonly frames: Frame[] = [];
  status = 0;
  private readonly abort = new AbortController();
  private readonly waiters: (() => void)[] = [];
  private cutByClient = false;
  /** Settles when the call's answer is over (end, error, broken or cut). */
  readonly done: Promise<void>;

  constructor(url: string, call: string, method: string, params: unknown, timeoutMs: number) {
    const timer = setTimeout(() => this.abort.abort(), timeoutMs);
    this.done = this.run(url, call, method, params).finally(() => {
      clearTimeout(timer);
      this.notify();
    });
  }

  private push(f: Frame) {
    this.frames.push(f);
    this.notify();
  }

  private notify() {
    for (const w of this.waiters.splice(0)) w();
  }

  private async run(url: string, call: string, method: string, params: unknown) {
    try {
      const r = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'text/event-stream, application/json',
          'a2a-version': '1.0',
          [CALL_HEADER]: call,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }),
        signal: this.abort.signal,
        redirect: 'manual',
      });
      this.status = r.status;
      if (!(r.headers.get('content-type') ?? '').includes('text/event-stream')) {
        this.answer(await r.json().catch(() => null));
        return;
      }
      const parser = createParser({
        onEvent: (e) => {
          let body: unknown = null;
          try {
            body = JSON.parse(e.data);
          } catch {
            this.push({
              kind: 'broken',
              why: `a data line that is not JSON: ${e.data.slice(0, 60)}`,
            });
            return;
          }
          this.answer(body);
        },
      });
      const decoder = new TextDecoder();
      for await (const chunk of r.body as unknown as AsyncIterable<Uint8Array>) {
        parser.feed(decoder.decode(chunk, { stream: true }));
      }
      this.push({ kind: 'end' });
    } catch (e) {
      if (this.cutByClient) return;
      this.push({
        kind: 'broken',
        why: this.abort.signal.aborted ? 'timed out' : (e as Error).message,
      });
    }
  }

  /** One JSON-RPC message: a result (one stream response), or an error, read from the body. */
  private answer(body: unknown) {
    const m = (body ?? {}) as Record<string, unknown>;
    const error = m['error'] as Record<string, unknown> | undefined;
    if (error && typeof error === 'object') {
      this.push({
        kind: 'error',
        status: this.status,
        code: typeof error['code'] === 'number' ? error['code'] : 0,
        message: String(error['message'] ?? ''),
        data: body,
      });
      return;
    }
    const result = m['result'] as Record<string, unknown> | undefined;
    for (const kind of ['task', 'statusUpdate', 'artifactUpdate', 'message'] as const) {
      const value = result?.[kind];
      if (value && typeof value === 'object') {
        this.push({ kind, value: value as Record<string, unknown>, data: body });
        return;
      }
    }
    if (result && typeof result === 'object' && 'id' in result && 'status' in result) {
      this.push({ kind: 'task', value: result, data: body });
      return;
    }
    this.push({
      kind: 'broken',
      why: `neither a result nor an error: ${JSON.stringify(body)?.slice(0, 80)}`,
    });
  }

  /** The client drops the connection (a network cut, as the client sees it). */
  cut(): void {
    this.cutByClient = true;
    this.abort.abort();
  }

  /** Resolves once `pred` holds of the frames; rejects after `ms` or when the call ended without it. */
  async until(pred: (frames: Frame[]) => boolean, ms: number, what: string): Promise<void> {
    const deadline = Date.now() + ms;
    let over = false;
    void this.done.then(() => (over = true));
    while (!pred(this.frames)) {
      if (over) throw new Error(`${what}: the call ended first`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`${what}: not within ${ms} ms`);
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((r) => {
        this.waiters.push(r);
        timer = setTimeout(r, left);
      });
      clearTimeout(timer);
      await Promise.resolve();
    }
  }
}

/** The event texts a frame carries (`e<k>` of a status message, `e<k>;` of a chunk). */
export function textsOf(value: unknown): string[] {
  const out: string[] = [];
  for (const m of JSON.stringify(value).matchAll(/"text":"((?:e\d+;)+|e\d+)"/g)) out.push(m[1]!);
  return out;
}

/** The k of the kit's event a status or artifact frame carries, or `undefined`. */
export function eventOf(frame: Frame): number | undefined {
  if (frame.kind !== 'statusUpdate' && frame.kind !== 'artifactUpdate') return undefined;
  const t = textsOf(frame.value)[0];
  return t === undefined ? undefined : Number(/e(\d+)/.exec(t)![1]);
}
