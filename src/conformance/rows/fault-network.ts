/**
 * The fault the client rows put between an SDK client and its server: a network that cuts a
 * call's stream where a scenario says and counts the GETs it sees. (The pause that holds a
 * slowed store's first replay after its read is `ReplayPause`, in ../replay-window.ts.)
 */
import { nextCall } from '../replay-window.js';

export interface SeenGet {
  cursor: string | null;
  status: number | null;
}

/** The network under the client: records GETs, can hold reconnects until the gate opens. */
export class FaultNetwork {
  readonly gets: SeenGet[] = [];
  private gate: Promise<void> | null = null;
  private openGate: (() => void) | null = null;
  private waiters: { n: number; resolve: () => void }[] = [];
  private readonly sentWaiters: (() => void)[] = [];
  private readonly answerWaiters: (() => void)[] = [];

  /** Holds every GET carrying `Last-Event-ID` until {@link open}. */
  close(): void {
    this.gate ??= new Promise((r) => (this.openGate = r));
  }

  open(): void {
    this.openGate?.();
    this.gate = null;
    this.openGate = null;
  }

  /** Resolves once `n` GETs with a cursor or after a cut have been answered (bounded). */
  async answered(n: number, timeoutMs: number): Promise<void> {
    if (this.gets.filter((g) => g.status !== null).length >= n) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      new Promise<void>((resolve) => this.waiters.push({ n, resolve })),
      new Promise<void>((r) => (timer = setTimeout(r, timeoutMs))),
    ]);
    clearTimeout(timer);
  }

  /**
   * Resolves when the next GET carrying `Last-Event-ID` leaves for the server (past the gate),
   * before its answer; rejects with a {@link NoAnswerError} after `timeoutMs`.
   */
  resumeSent(timeoutMs: number): Promise<void> {
    return nextCall(this.sentWaiters, 'the client sent no GET with Last-Event-ID', timeoutMs);
  }

  /**
   * Resolves when the next GET carrying `Last-Event-ID` has its answer's headers (the server
   * registered the resumed stream before it answered); rejects with a {@link NoAnswerError}
   * after `timeoutMs`.
   */
  resumeAnswered(timeoutMs: number): Promise<void> {
    return nextCall(this.answerWaiters, 'no GET with Last-Event-ID was answered', timeoutMs);
  }

  readonly fetch: typeof fetch = async (input, init) => {
    const method = (init?.method ?? 'GET').toUpperCase();
    if (method !== 'GET') return fetch(input, init);
    const headers = new Headers(init?.headers);
    const seen: SeenGet = { cursor: headers.get('last-event-id'), status: null };
    this.gets.push(seen);
    if (seen.cursor !== null && this.gate) await this.gate;
    const answer = fetch(input, init);
    if (seen.cursor !== null) for (const w of this.sentWaiters.splice(0)) w();
    const res = await answer;
    seen.status = res.status;
    if (seen.cursor !== null) for (const w of this.answerWaiters.splice(0)) w();
    const done = this.gets.filter((g) => g.status !== null).length;
    for (const w of this.waiters.filter((w) => done >= w.n)) w.resolve();
    return res;
  };
}
