/**
 * What the playground's "Load" box reads: a world string (`world:v1;...`, printed on the
 * `playground:` line of every counterexample and scenario), a replay command as the CLI prints
 * it (`mcp-resumption explore --seed 1 --path ... --replay-path '...' --kind ... --mutant ...`:
 * fast-check regenerates the shrunk counterexample in the page, as `explore` does), or the name
 * of one of the seed's incidents.
 */
import { WORLD_KINDS, type WorldKind } from '../../model/world/arbitraries.js';
import { parseConfig } from '../../model/world/config.js';
import { SEED_SCENARIOS } from '../../model/world/scenarios.js';
import { explore } from '../explore/explore.js';
import {
  MODEL_CLIENT,
  namesOf,
  parseWorldString,
  WORLD_PREFIX,
  type WorldSpec,
} from '../explore/world-string.js';

/** A loaded world and what to call it. */
export interface Loaded {
  spec: WorldSpec;
  label: string;
}

/** Splits a command line into words, honouring single and double quotes. */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  const re = /'([^']*)'|"([^"]*)"|(\S+)/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(line)) !== null) words.push(m[1] ?? m[2] ?? m[3]!);
  return words;
}

/** The options of a replay command (`--name value` pairs after `explore`). */
function replayOptions(line: string): Map<string, string> {
  const words = shellWords(line.replace(/^\s*replay:\s*/, ''));
  const start = words.indexOf('explore');
  if (start < 0) throw new Error('a replay command runs `mcp-resumption explore ...`');
  const options = new Map<string, string>();
  for (let i = start + 1; i < words.length; i += 2) {
    const key = words[i]!;
    const value = words[i + 1];
    if (!key.startsWith('--') || value === undefined)
      throw new Error(`cannot read ${JSON.stringify(key)} in the replay command`);
    options.set(key.slice(2), value);
  }
  return options;
}

/** Replays a counterexample from its replay command, as `explore` does, and names its world. */
export function loadReplayCommand(line: string): Loaded {
  const o = replayOptions(line);
  const seed = Number(o.get('seed'));
  const path = o.get('path');
  const kind = (o.get('kind') ?? 'mixed') as WorldKind;
  if (!Number.isSafeInteger(seed) || path === undefined)
    throw new Error('a replay command needs --seed N and --path P');
  if (!WORLD_KINDS.includes(kind)) throw new Error(`unknown --kind ${kind}`);
  const configText = o.get('config');
  const mutant = o.get('mutant');
  const replayPath = o.get('replay-path');
  const report = explore({
    seconds: 1,
    seed,
    kind,
    path,
    killRuns: 0,
    ...(replayPath !== undefined ? { replayPath } : {}),
    ...(mutant !== undefined ? { mutant } : {}),
    ...(configText !== undefined ? { config: parseConfig(configText) } : {}),
  });
  const cx = report.counterexample;
  if (cx === null) throw new Error('the replay command did not break a claim: nothing to load');
  const spec = { cfg: cx.cfg, commands: cx.commands, ...namesOf(cx.subject ?? {}, cx.cfg) };
  return { spec, label: `${cx.claim} broken (${mutant ?? MODEL_CLIENT})` };
}

/** Reads what the Load box holds. Throws an Error with one line that says what is wrong. */
export function loadText(text: string): Loaded {
  const t = text.trim();
  const scenario = SEED_SCENARIOS.find((s) => s.name === t);
  if (scenario)
    return {
      spec: { cfg: scenario.cfg, commands: scenario.commands, client: MODEL_CLIENT },
      label: scenario.name,
    };
  if (t.startsWith(WORLD_PREFIX)) return { spec: parseWorldString(t), label: 'world string' };
  if (/\bexplore\b/.test(t)) return loadReplayCommand(t);
  throw new Error(
    `paste a world string (${WORLD_PREFIX};...), a replay command (mcp-resumption explore --seed ...), or an incident's name`,
  );
}
