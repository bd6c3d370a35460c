/**
 * The world string: one line that says everything a world needs (its configuration, the
 * client that runs in it, the server policy it really runs, its commands), so that a
 * counterexample or a scenario can be copied from the terminal into the playground and
 * replayed there. Worlds are deterministic: the same string is the same run.
 *
 *     world:v1;client=trusts-any-200;config=D=64,K=15000,...;commands=(Advance(8000),Emit)*41,Drain
 *
 * Sections are separated by `;`: `client` (`model` or a client mutant), `server` (optional: a
 * policy the server runs while its configuration declares another, as the server mutants do),
 * `config` (as `--config` reads it, complete) and `commands` (comma-separated, with `X*N` and
 * `(X,Y)*N` for repeats).
 */
import { CLIENT_MUTANTS } from '../../model/mutants/client-mutants.js';
import type { WorldCommand } from '../../model/world/commands.js';
import { describeCommand } from '../../model/world/commands.js';
import {
  DEFAULT_CONFIG,
  formatConfig,
  parseConfig,
  POLICIES,
  type PolicyName,
  type WorldConfig,
} from '../../model/world/config.js';
import type { Subject } from '../../model/world/property.js';

/** The prefix that marks a world string (and its version). */
export const WORLD_PREFIX = 'world:v1';

/** The client that runs when no mutant does. */
export const MODEL_CLIENT = 'model';

/** A world, by names: what a world string says. */
export interface WorldSpec {
  cfg: WorldConfig;
  commands: WorldCommand[];
  /** {@link MODEL_CLIENT}, or the name of a client mutant. */
  client: string;
  /** The policy the server really runs, when it differs from `cfg.policy`. */
  server?: PolicyName;
}

/** Every client name a world string accepts: the model's, then the client mutants. */
export const CLIENT_NAMES: readonly string[] = [MODEL_CLIENT, ...CLIENT_MUTANTS.map((m) => m.name)];

/** What runs for a world spec: the client mutant's machine and behaviour, the real policy. */
export function subjectOf(spec: Pick<WorldSpec, 'client' | 'server'>): Subject {
  const base =
    spec.client === MODEL_CLIENT ? {} : CLIENT_MUTANTS.find((m) => m.name === spec.client)?.subject;
  if (base === undefined) throw new Error(`unknown client ${JSON.stringify(spec.client)}`);
  return spec.server === undefined ? { ...base } : { ...base, policy: spec.server };
}

/**
 * The names of what runs in `subject` (the reverse of {@link subjectOf}): the client mutant
 * whose machine and behaviour it has, and its policy if it overrides the declared one.
 */
export function namesOf(subject: Subject, cfg: WorldConfig): Pick<WorldSpec, 'client' | 'server'> {
  const same = (a: object | undefined, b: object | undefined) =>
    JSON.stringify(a ?? {}) === JSON.stringify(b ?? {});
  const client =
    subject.machine === undefined && same(subject.behaviour, undefined)
      ? MODEL_CLIENT
      : CLIENT_MUTANTS.find(
          (m) =>
            m.subject.machine === subject.machine && same(m.subject.behaviour, subject.behaviour),
        )?.name;
  if (client === undefined) throw new Error('the subject is neither the model nor a client mutant');
  return subject.policy !== undefined && subject.policy !== cfg.policy
    ? { client, server: subject.policy }
    : { client };
}

/** One command as `describeCommand` writes it, read back. */
function parseCommand(text: string): WorldCommand {
  const m = /^([A-Za-z]+)(?:\(([^)]*)\))?$/.exec(text.trim());
  if (!m) throw new Error(`not a command: ${JSON.stringify(text)}`);
  const [, name, arg] = m;
  const plain = (c: WorldCommand): WorldCommand => {
    if (arg !== undefined) throw new Error(`${name} takes no argument`);
    return c;
  };
  switch (name) {
    case 'Emit':
      if (arg === undefined) return { kind: 'Emit', stream: 'tool' };
      if (arg === 'other') return { kind: 'Emit', stream: 'other' };
      throw new Error('Emit takes no argument or (other)');
    case 'Advance':
      if (arg === undefined || !/^\d+$/.test(arg))
        throw new Error('Advance needs milliseconds: Advance(1000)');
      return { kind: 'Advance', ms: Number(arg) };
    case 'Disconnect':
      if (arg === undefined) return { kind: 'Disconnect', silent: false };
      if (arg === 'silent') return { kind: 'Disconnect', silent: true };
      throw new Error('Disconnect takes no argument or (silent)');
    case 'Restart':
      if (arg === undefined) return { kind: 'Restart' };
      if (arg === '2026-07-28') return { kind: 'Restart', era: '2026-07-28' };
      throw new Error('Restart takes no argument or (2026-07-28)');
    case 'Evict':
    case 'SaturateApp':
    case 'ReleaseApp':
    case 'Drain':
    case 'Reconnect':
      return plain({ kind: name });
    default:
      throw new Error(`unknown command ${JSON.stringify(name)}`);
  }
}

/** Reads `Emit,(Advance(1000),Emit)*3,Drain*2`. Throws an Error naming what it cannot read. */
export function parseCommands(text: string): WorldCommand[] {
  let i = 0;
  const list = (): WorldCommand[] => {
    const out: WorldCommand[] = [];
    for (;;) {
      while (text[i] === ' ') i++;
      if (i >= text.length || text[i] === ')') return out;
      let item: WorldCommand[];
      if (text[i] === '(') {
        i++;
        item = list();
        if (text[i] !== ')') throw new Error('a group "(" is not closed');
        i++;
      } else {
        const m = /^[A-Za-z]+(\([^)]*\))?/.exec(text.slice(i));
        if (!m) throw new Error(`cannot read commands at ${JSON.stringify(text.slice(i, i + 20))}`);
        item = [parseCommand(m[0])];
        i += m[0].length;
      }
      const times = /^\*(\d+)/.exec(text.slice(i));
      if (times) i += times[0].length;
      for (let k = 0; k < (times ? Number(times[1]) : 1); k++) out.push(...item);
      while (text[i] === ' ') i++;
      if (text[i] === ',') i++;
      else if (i < text.length && text[i] !== ')')
        throw new Error(`expected "," at ${JSON.stringify(text.slice(i, i + 20))}`);
    }
  };
  const out = list();
  if (i < text.length) throw new Error('a ")" has no "("');
  return out;
}

/** Writes commands with their repeats folded: `(Advance(8000),Emit)*41,Drain`. */
export function formatCommands(commands: readonly WorldCommand[]): string {
  const d = commands.map(describeCommand);
  const out: string[] = [];
  let i = 0;
  while (i < d.length) {
    let best = { p: 1, r: 1 };
    for (let p = 1; p <= 4 && i + 2 * p <= d.length; p++) {
      let r = 1;
      while (
        i + (r + 1) * p <= d.length &&
        d.slice(i + r * p, i + (r + 1) * p).join() === d.slice(i, i + p).join()
      )
        r++;
      if (r >= 2 && p * r >= 3 && p * r > best.p * best.r) best = { p, r };
    }
    const block = d.slice(i, i + best.p).join(',');
    if (best.r === 1) out.push(block);
    else out.push(best.p === 1 ? `${block}*${best.r}` : `(${block})*${best.r}`);
    i += best.p * best.r;
  }
  return out.join(',');
}

/** The world string of a spec. */
export function formatWorldString(spec: WorldSpec): string {
  const parts = [WORLD_PREFIX, `client=${spec.client}`];
  if (spec.server !== undefined) parts.push(`server=${spec.server}`);
  parts.push(`config=${formatConfig(spec.cfg)}`, `commands=${formatCommands(spec.commands)}`);
  return parts.join(';');
}

/** Reads a world string. Throws an Error with one line that names what is wrong. */
export function parseWorldString(text: string): WorldSpec {
  const [head, ...sections] = text.trim().split(';');
  if (head !== WORLD_PREFIX) throw new Error(`a world string starts with ${WORLD_PREFIX};`);
  const values = new Map<string, string>();
  for (const s of sections) {
    const eq = s.indexOf('=');
    const key = s.slice(0, eq).trim();
    if (eq <= 0 || !['client', 'server', 'config', 'commands'].includes(key))
      throw new Error(`unknown section ${JSON.stringify(s.slice(0, 20))}`);
    values.set(key, s.slice(eq + 1));
  }
  const client = values.get('client') ?? MODEL_CLIENT;
  if (!CLIENT_NAMES.includes(client))
    throw new Error(`client must be one of ${CLIENT_NAMES.join(', ')}`);
  const server = values.get('server');
  if (server !== undefined && !(POLICIES as readonly string[]).includes(server))
    throw new Error(`server must be one of ${POLICIES.join(', ')}`);
  const cfg = parseConfig(values.get('config') ?? '', DEFAULT_CONFIG);
  const commands = parseCommands(values.get('commands') ?? '');
  return {
    cfg,
    commands,
    client,
    ...(server !== undefined ? { server: server as PolicyName } : {}),
  };
}
