/**
 * Wrong readers of the wire, each a subclass of the runtime's own (or, for a function, the same
 * function with one part read differently) that puts one bug back, for the properties that hold
 * each reader to its reference (properties/runtime/id-only-blocks.test.ts,
 * machine-track.test.ts, guard-ids.test.ts, cursor-index.test.ts). Outside src/runtime/ (the
 * deployable folder) and not exported by `mcp-resumption/runtime`: the runtime's readers have
 * no switch for them.
 */
import { CursorIndex } from '../runtime/cursor-index.js';
import { readAfterEpoch } from '../runtime/guard-ids.js';
import { ChunkText, SseLines } from '../runtime/id-only-blocks.js';
import { MachineTrack } from '../runtime/machine-track.js';
import { SessionCursors } from '../runtime/session-cursors.js';
import type { Engine } from '../trace/engine.js';

/**
 * What {@link ChunkText} gets wrong, for the property that holds it to `TextDecoder`:
 * `ascii-after-utf8` goes back to reading bytes as ASCII after a chunk that was not (the
 * decoder may hold half a character); `bom-mid-stream` hands the decoder a stream it has not
 * seen begin (a U+FEFF in the middle is then dropped as a byte order mark).
 */
export type ChunkTextMutant = 'ascii-after-utf8' | 'bom-mid-stream';

/** `ascii-after-utf8`: reads an ASCII chunk without the decoder, even once it has begun. */
class AsciiAfterUtf8 extends ChunkText {
  protected override readsAscii(): boolean {
    return true;
  }
}

/** `bom-mid-stream`: the decoder drops a U+FEFF at its start, even after the stream began. */
class BomMidStream extends ChunkText {
  protected override keepsBom(): boolean {
    return false;
  }
}

/** A {@link ChunkText} with the mutant `name` put back. */
export function mutantChunkText(name: ChunkTextMutant): ChunkText {
  const mutants = { 'ascii-after-utf8': AsciiAfterUtf8, 'bom-mid-stream': BomMidStream };
  return new mutants[name]();
}

/**
 * The lazy NUL check of {@link SseLines} left unfinished: `drops-pending-id` forgets an id line
 * not yet looked at when the text ends inside its block.
 */
export type SseLinesMutant = 'drops-pending-id';

/** `drops-pending-id`. */
class DropsPendingId extends SseLines {
  protected override textEnds(): void {
    this.idFrom = -1;
  }
}

/** An {@link SseLines} with the mutant `name` put back. */
export function mutantSseLines(maxLineBytes: number, name: SseLinesMutant): SseLines {
  const mutants = { 'drops-pending-id': DropsPendingId };
  return new mutants[name](maxLineBytes);
}

/**
 * A store id reader with one check left out, for the property that holds `readStoreId` to
 * `CONTINUITY_ID_PATTERN`: `epoch-any-case` takes capitals in the epoch.
 */
export type StoreIdMutant = 'epoch-any-case';

/** `readStoreId` with the mutant `name` put back. */
export function mutantReadStoreId(
  id: string,
  name: StoreIdMutant,
): { seq: number; stream: string } | null {
  const mutants = { 'epoch-any-case': epochAnyCase };
  return mutants[name](id);
}

/** `epoch-any-case`: the epoch takes `[0-9a-zA-Z]`. */
function epochAnyCase(id: string): { seq: number; stream: string } | null {
  let i = 0;
  for (; i < id.length; i++) {
    const c = id.charCodeAt(i);
    const letter = (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a);
    if (!letter && !(c >= 0x30 && c <= 0x39)) break;
  }
  return readAfterEpoch(id, i);
}

/**
 * A machine track's fast path with one check left out, for the property that holds it to the
 * machine: `ignores-stream` takes a successor id from any stream.
 */
export type FastPathMutant = 'ignores-stream';

/** `ignores-stream`. */
class IgnoresStream extends MachineTrack {
  protected override sameStream(): boolean {
    return true;
  }
}

/** A {@link MachineTrack} with the mutant `name` put back. */
export function mutantMachineTrack(engine: Engine, name: FastPathMutant): MachineTrack {
  const mutants = { 'ignores-stream': IgnoresStream };
  return new mutants[name](engine);
}

/**
 * `lazy-index-skips-taken-ids` (a guard mutant, guard-mutants.ts): the lazy cursor index skips
 * its check for an id the index already holds, so a stream's later id is never written over
 * another stream's entry.
 */
class SkipsTakenIds extends CursorIndex {
  protected override taken(): boolean {
    return false;
  }
}

/** Cursor indexes that skip the check for a taken id (`lazy-index-skips-taken-ids`). */
export class SessionsSkippingTakenIds extends SessionCursors {
  protected override newIndex(): CursorIndex {
    return new SkipsTakenIds();
  }
}
