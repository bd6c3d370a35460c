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
  /**
   * The keys of the map by {@link keyClass}: an id whose class holds none is no key, found
   * without hashing it (`map.has` hashes every new id string: one per event, on every stream).
   */
  private readonly classes = new Int32Array(64);

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
    if (this.map.get(key) === track) this.drop(key);
    this.put(track.lastId!, track);
  }

  /** Drops the id a track holds, unless a later stream holds it now. */
  forget(track: Track): void {
    this.catchUp();
    if (track.lastId !== null && this.map.get(track.lastId) === track) this.drop(track.lastId);
  }

  /** Whether the map holds `id`: a lazy write would leave its entry to another stream. */
  protected taken(id: string): boolean {
    return this.classes[keyClass(id)]! > 0 && this.map.has(id);
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
    this.put(id, track);
    this.lazy = track;
    this.lazyKey = id;
  }

  /** `map.set`, keeping {@link classes}. */
  private put(key: string, track: Track): void {
    if (!this.map.has(key)) this.classes[keyClass(key)]!++;
    this.map.set(key, track);
  }

  /** `map.delete` of a key the map holds, keeping {@link classes}. */
  private drop(key: string): void {
    this.map.delete(key);
    this.classes[keyClass(key)]!--;
  }
}

/** An id's class for {@link CursorIndex}'s `classes`: of its length and its last character. */
function keyClass(id: string): number {
  return (id.length * 7 + (id.charCodeAt(id.length - 1) | 0)) & 63;
}
