/**
 * The A2A client's wire in the world: every observation the world's client would feed its
 * machine (the opening call, a resubscribe, an answer, an update, the end of a stream) is first
 * written as the wire fact an A2A client sends or receives, in the era the world speaks, and the
 * `a2a` binding's translator of that era turns the facts into the observations the same machine
 * is fed (model/world/task-wire.ts, `ClientWire`). Timers, keepalives and drops pass as they are.
 *
 * Numbers: the world numbers the task's updates from 1 (the fresh client holds cursor 0, the
 * task's creation); the wire writes each update's `generation` as the server assigned it
 * (model/world/a2a-policies.ts, `generationOf`: the creation is generation 1), and the machine
 * counts generations: timelines of an A2A world show generations in the machine's lines.
 * Era 1.0 writes no generation (the spec has none), and no cursor on `SubscribeToTask`; dev-1.1
 * writes generations and no cursor (the request has no field for it); 1986 writes the cursor
 * (the proposal's `afterGeneration`), and a marker for a generation that is no streamed event
 * (the proposal's point 5), which dev-1.1 leaves off the wire.
 */
import type { WireFact } from '../bindings/binding.js';
import type { Observation } from '../observations.js';
import { TASK_NOT_FOUND } from '../bindings/a2a.js';
import { frameFact, generationOf, messageGeneration } from './a2a-numbers.js';
import type { A2aEra } from './config.js';
import { TOOL_STREAM } from './frames.js';
import type { AnsweredResponse, WireWriter } from './task-wire.js';

/** The status of a lost session in the world: the A2A server answers `TaskNotFoundError`. */
const SESSION_LOST_STATUS = 404;

/**
 * The A2A wire of a world whose server runs `policy` (its generations) in `era`, and whose
 * task has `N` updates (the last one is its terminal status).
 */
export function a2aWriter(policy: string, era: A2aEra, N: number): WireWriter {
  const gen = (id: number) => generationOf(policy, id);
  const message = messageGeneration(policy);
  const numbered = era !== '1.0';
  const update = (id: number): WireFact =>
    frameFact({
      statusUpdate: {
        taskId: TOOL_STREAM,
        status: { state: id >= N ? 'TASK_STATE_COMPLETED' : 'TASK_STATE_WORKING' },
        ...(numbered ? { generation: gen(id) } : {}),
      },
    });
  const facts = (o: Observation): readonly WireFact[] | null => {
    switch (o.type) {
      case 'OPEN':
        return [
          { type: 'a2a/send', taskId: TOOL_STREAM },
          frameFact({
            task: {
              id: TOOL_STREAM,
              status: { state: 'TASK_STATE_SUBMITTED' },
              ...(numbered ? { generation: gen(0) } : {}),
            },
          }),
        ];
      case 'RECONNECT':
        return [
          {
            type: 'a2a/subscribe',
            taskId: o.stream ?? TOOL_STREAM,
            ...(era === '1986' && o.cursor !== null ? { afterGeneration: gen(o.cursor) } : {}),
          },
        ];
      case 'RESPONSE': {
        const f = (o as AnsweredResponse).facts;
        if (f !== undefined) return f;
        if (o.status === SESSION_LOST_STATUS)
          return [
            {
              type: 'a2a/error',
              status: 200,
              error: { code: TASK_NOT_FOUND, message: `Task not found: ${TOOL_STREAM}` },
            },
          ];
        return [{ type: 'a2a/error', status: o.status }];
      }
      case 'EVENT': {
        // Under 1986 the generation a client message took goes on the wire before the update
        // that follows it (the proposal's point 5: every generation on the wire), as a `Task`
        // frame of that generation; dev-1.1 sends nothing for it.
        if (era === '1986' && message !== null && gen(o.id) === message + 1)
          return [
            frameFact({
              task: {
                id: TOOL_STREAM,
                status: { state: 'TASK_STATE_WORKING' },
                generation: message,
              },
            }),
            update(o.id),
          ];
        return [update(o.id)];
      }
      case 'END':
        return [{ type: 'a2a/end', taskId: TOOL_STREAM }];
      default:
        return null;
    }
  };
  return { facts, back: (o) => o };
}
