/** Observations in words, for tables, timelines and counterexamples. */
import type { Observation } from './observations.js';

/** One observation, compactly: `RESPONSE 200 floor=42`, `EVENT 130`, `RECONNECT 41`. */
export function describeObservation(o: Observation): string {
  switch (o.type) {
    case 'OPEN':
      return `OPEN ${o.status}${o.epoch !== undefined ? ` epoch=${o.epoch}` : ''}${o.stream !== undefined ? ` stream=${o.stream}` : ''}${o.cursor !== undefined ? ` from=${o.cursor}` : ''}`;
    case 'EVENT':
      return `EVENT ${o.id}${o.stream !== undefined ? ` stream=${o.stream}` : ''}`;
    case 'RECONNECT':
      return `RECONNECT ${o.cursor === null ? '(no Last-Event-ID)' : o.cursor}${o.stream !== undefined ? ` stream=${o.stream}` : ''}`;
    case 'RESPONSE': {
      const parts = [`RESPONSE ${o.status}`];
      if (o.floor !== undefined) parts.push(`floor=${o.floor}`);
      if (o.head !== undefined) parts.push(`head=${o.head}`);
      if (o.epoch !== undefined) parts.push(`epoch=${o.epoch}`);
      if (o.durable !== undefined) parts.push(`durable=${o.durable}`);
      return parts.join(' ');
    }
    default:
      return o.type;
  }
}

/** A sequence of observations, with runs of contiguous events folded: `EVENT 1..41`. */
export function describeObservations(obs: readonly Observation[]): string {
  const out: string[] = [];
  let i = 0;
  while (i < obs.length) {
    const o = obs[i] as Observation;
    if (o.type === 'EVENT' && o.stream === undefined) {
      let j = i;
      while (j + 1 < obs.length) {
        const n = obs[j + 1] as Observation;
        const p = obs[j] as Observation & { id: number };
        if (n.type === 'EVENT' && n.stream === undefined && n.id === p.id + 1) j++;
        else break;
      }
      const last = obs[j] as Observation & { id: number };
      out.push(j > i ? `EVENT ${o.id}..${last.id}` : `EVENT ${o.id}`);
      i = j + 1;
    } else {
      out.push(describeObservation(o));
      i++;
    }
  }
  return out.join(', ');
}
