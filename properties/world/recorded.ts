/**
 * Generated worlds with their timelines recorded, for the suites of the renderers (brief
 * timelines, sequence diagrams, world strings): any configuration, any commands, any client.
 */
import fc from 'fast-check';
import { commandsArb, configArb } from '../../model/world/arbitraries.js';
import type { WorldCommand } from '../../model/world/commands.js';
import type { WorldConfig } from '../../model/world/config.js';
import { runWorld, toWorldCommands } from '../../model/world/property.js';
import type { World } from '../../model/world/world.js';
import { CLIENT_NAMES, subjectOf } from '../../src/explore/world-string.js';

/** One generated world: its spec, and the world run to its end with a timeline. */
export interface Recorded {
  cfg: WorldConfig;
  commands: WorldCommand[];
  client: string;
  world: World;
}

/** Mixed configurations and commands, with the model's client or any client mutant. */
export const recordedArb: fc.Arbitrary<Recorded> = fc
  .tuple(configArb('mixed'), commandsArb('mixed'), fc.constantFrom(...CLIENT_NAMES))
  .map(([cfg, cmds, client]) => {
    const commands = toWorldCommands(cmds);
    const world = runWorld(cfg, commands, subjectOf({ client }), { record: true });
    return { cfg, commands, client, world };
  });
