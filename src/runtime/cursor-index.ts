/**
 * The guard's index of streams by the last id each delivered: a resume's `Last-Event-ID` names
 * the stream it resumes. The latest stream to deliver an id holds it, and a stream that moves
 * on drops the id it held, unless a later stream holds it now.
 *
 * One stream's events are the common case, and writing the map at each would cost three map
 * operations an event. So the track that remembered last writes only an id the map already
 * holds (its own write would take that entry over); its other ids wait until the map is next
 * read or written by anyone (`catchUp`), since its next id would drop each of them again. The
 * map is then exactly what writing each id at once makes it:
 * properties/runtime/cursor-index.test.ts holds the two to each other.
 */
import type { Track } from './guard-track.js';

/** See the module comment. */
export class CursorIndex {
  private readonly map = new Map<string, Track>();
  /** The track that remembered last; the map holds `lazyKey` for it, not yet its last id. */
  private lazy: Track | null = null;
  private lazyKey: string | null = null;

  /** The stream whose last delivered id is `lastEventId` (`undefined`: none). */
  holding(lastEventId: string): Track | undefined {
    this.catchUp();
    return this.map.get(lastEventId);
  }

  /**
   * Writes the lazy track's last id. Only that track remembered since the map was last used,
   * none of its ids in between was a key of the map, and its old key is its own.
   */
  private catchUp(): void {
    const track = this.lazy;
    if (track === null) return;
    this.lazy = null;
    const key = this.lazyKey!;
    if (track.lastId === key) return;
    if (this.map.get(key) === track) this.map.delete(key);
    this.map.set(track.lastId!, track);
  }

  /** Drops the id a track holds, unless a later stream holds it now. */
  forget(track: Track): void {
    this.catchUp();
    if (track.lastId !== null && this.map.get(track.lastId) === track)
      this.map.delete(track.lastId);
  }

  /** Whether the map holds `id`: a lazy write would leave its entry to another stream. */
  protected taken(id: string): boolean {
    return this.map.has(id);
  }

  /** `track` delivered `id` (it becomes the track's `lastId`). */
  remember(track: Track, id: string): void {
    const taken = this.taken(id);
    if (this.lazy === track && !taken) {
      track.lastId = id;
      return;
    }
    this.forget(track);
    track.lastId = id;
    this.map.set(id, track);
    this.lazy = track;
    this.lazyKey = id;
  }
}
