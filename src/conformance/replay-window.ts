/**
 * The replay window of a slowed store, held open by events: the store's first replay waits
 * between its read and its answer until the scenario lets it go on, so that what the scenario
 * does meanwhile happens between the read and the registration of the resumed stream, however
 * loaded the machine. Used by `slow-store-replay`, the server scenario and the client rows'.
 */
import { NoAnswerError } from './types.js';

/**
 * Resolves when the next callback pushed on `queue` is called; rejects with a
 * {@link NoAnswerError} saying `what` did not happen after `timeoutMs`.
 */
export function nextCall(queue: (() => void)[], what: string, timeoutMs: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      const at = queue.indexOf(done);
      if (at >= 0) queue.splice(at, 1);
      reject(new NoAnswerError(`${what} in ${timeoutMs} ms`));
    }, timeoutMs);
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    queue.push(done);
  });
}

/**
 * The first replay a slowed store reads, held between its read and its answer
 * (`StartOptions.onReplayRead`) until the scenario lets it go on; and the writes a store behind
 * a `ReplayFence` is handed meanwhile (`StartOptions.onFencedWrite`), which the fence holds
 * until that replay has returned.
 */
export class ReplayPause {
  private goOn: (() => void) | null = null;
  private readonly readWaiters: (() => void)[] = [];
  private readonly writeWaiters: (() => void)[] = [];

  /** The store's hook: holds the first replay until {@link release}; later ones go on. */
  readonly hook = (): Promise<void> => {
    if (this.goOn) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.goOn = resolve;
      for (const w of this.readWaiters.splice(0)) w();
    });
  };

  /** The fenced store's hook: a write was handed to the fence. */
  readonly fencedWrite = (): void => {
    for (const w of this.writeWaiters.splice(0)) w();
  };

  /** Resolves once the store holds a replay it has read; NoAnswerError after `timeoutMs`. */
  read(timeoutMs: number): Promise<void> {
    if (this.goOn) return Promise.resolve();
    return nextCall(this.readWaiters, 'the slowed store read no replay', timeoutMs);
  }

  /**
   * Resolves once the store holds a replay it has read, and never otherwise (for a race with
   * what else may happen instead: a store that has no hook answers without one).
   */
  whenRead(): Promise<void> {
    if (this.goOn) return Promise.resolve();
    return new Promise<void>((resolve) => this.readWaiters.push(resolve));
  }

  /**
   * Resolves at the next write handed to a fenced store from now on, and never otherwise (a
   * store without a fence stores the write instead: race it with the write's own report).
   */
  nextFencedWrite(): Promise<void> {
    return new Promise<void>((resolve) => this.writeWaiters.push(resolve));
  }

  /** Lets the held replay go on (its answer travels back, the stream is registered). */
  release(): void {
    this.goOn?.();
  }
}
