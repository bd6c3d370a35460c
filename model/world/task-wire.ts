/**
 * The client's input under a binding other than the native one: every observation the world's
 * client would feed its machine (an opening call, a resume, an answer, an event, the end of a
 * stream) is first written as the wire fact a task-stream client receives or sends, and the
 * binding's translator (model/bindings/mcp-tasks.ts, or a mutant of it) turns the facts into
 * what the machine is fed: the same translator `check --binding mcp-tasks` reads traces with,
 * in front of the same machine. Timers, keepalives and drops are the client's own: they pass
 * as they are, as they do in a trace (its native lines).
 *
 * Numbers: the world numbers a stream's events from 1 and a fresh client holds cursor 0; a task
 * numbers its events from `seq` 0. The wire writes `seq = id - 1` and `after = cursor - 1` (no
 * `after` at cursor 0: the client has seen nothing, a fresh call), and maps the translator's
 * numbers back (+1), so that the machine counts as the world does.
 */
import type { Binding, BindingTranslator, WireFact } from '../bindings/binding.js';
import type { Observation, ResponseObservation } from '../observations.js';
import { TOOL_STREAM } from './frames.js';

/** A reconnect's answer as the port gives it: headers, and the facts of a task-stream error. */
export type AnsweredResponse = ResponseObservation & { facts?: readonly WireFact[] };

/** The `seq` of the world's event id, and the world's id of a `seq`. */
const seqOf = (id: number) => id - 1;
const idOf = (seq: number) => seq + 1;

/** The translator's observation in the world's numbers. */
function inWorldNumbers(o: Observation): Observation {
  switch (o.type) {
    case 'EVENT':
      return { ...o, id: idOf(o.id) };
    case 'RECONNECT':
      return o.cursor === null ? o : { ...o, cursor: idOf(o.cursor) };
    case 'OPEN':
      return o.cursor === undefined ? o : { ...o, cursor: idOf(o.cursor) };
    case 'RESPONSE':
      return o.floor === undefined ? o : { ...o, floor: idOf(o.floor) };
    default:
      return o;
  }
}

/**
 * How a world's client writes its observations on a binding's wire: the facts an observation
 * stands for (`null`: none, it passes to the machine as it is), and the translator's
 * observations back in the world's numbers.
 */
export interface WireWriter {
  /** The wire facts the client's observation `o` stands for (`null`: none, it passes as it is). */
  facts(o: Observation): readonly WireFact[] | null;
  /** An observation of the translator's, in the numbers the world's machine counts with. */
  back(o: Observation): Observation;
}

/** The task-stream client's wire (SEP-2694): `seq = id - 1`, `after = cursor - 1`. */
export const TASK_WRITER: WireWriter = { facts: factsOf, back: inWorldNumbers };

/** The wire fact an observation of the world's client stands for (`null`: none, pass it). */
function factsOf(o: Observation): readonly WireFact[] | null {
  switch (o.type) {
    case 'OPEN':
      return [{ type: 'tasks/stream', taskId: TOOL_STREAM }];
    case 'RECONNECT':
      return [
        {
          type: 'tasks/stream',
          taskId: o.stream ?? TOOL_STREAM,
          ...(o.cursor === null || o.cursor === 0 ? {} : { after: seqOf(o.cursor) }),
        },
      ];
    case 'RESPONSE': {
      const facts = (o as AnsweredResponse).facts;
      if (facts !== undefined) return facts;
      // A 200 opens the call's stream: its answer is the first event, result or error.
      return o.status === 200 ? [] : [{ type: 'tasks/error', status: o.status }];
    }
    case 'EVENT':
      return [{ type: 'tasks/event', taskId: o.stream ?? TOOL_STREAM, seq: seqOf(o.id) }];
    case 'END':
      return [{ type: 'tasks/result' }];
    default:
      return null;
  }
}

/**
 * The client's binding translator in a world: copied with the world, part of its fingerprint.
 *
 * A copy shares its translator with the wire it was copied from until either one feeds it an
 * observation: that one first takes a translator of its own. The search copies a world
 * several times a state and most moves feed the client nothing, so most copies never copy the
 * translator (its sets of tasks), and the key of a shared translator is built once.
 */
export class ClientWire {
  /** Another wire may hold this translator: copy it before feeding it. */
  private shared = false;
  /** The translator's key, while it has not changed since it was built. */
  private cachedKey: string | null = null;

  private constructor(
    private translator: BindingTranslator,
    private readonly writer: WireWriter,
  ) {}

  /**
   * The wire of `binding`'s translator, written by `writer` (the task stream's by default); the
   * translator must be able to branch with the world.
   */
  static of(binding: Binding, writer: WireWriter = TASK_WRITER): ClientWire {
    const t = binding.translator?.();
    if (t === undefined || t.clone === undefined || t.key === undefined) {
      throw new Error(`binding ${binding.name} has no translator a world can branch`);
    }
    return new ClientWire(t, writer);
  }

  /** What the machine is fed for the client's observation `o`, in order. */
  input(o: Observation): readonly Observation[] {
    const facts = this.writer.facts(o);
    if (facts === null) return [o];
    if (this.shared) {
      this.translator = this.translator.clone!();
      this.shared = false;
    }
    this.cachedKey = null;
    const out: Observation[] = [];
    for (const f of facts)
      for (const x of this.translator.translate(f)) out.push(this.writer.back(x));
    return out;
  }

  /** An independent copy, with the translator's state, for a search that branches here. */
  clone(): ClientWire {
    const copy = new ClientWire(this.translator, this.writer);
    this.shared = true;
    copy.shared = true;
    copy.cachedKey = this.cachedKey;
    return copy;
  }

  /** The translator's state as a string, part of a searched state's fingerprint. */
  key(): string {
    return (this.cachedKey ??= this.translator.key!());
  }
}
