/**
 * World strings (the `playground:` line): a world written as one and read back is the same
 * world, run for run; the scenarios are short; the subjects of every mutant probe have names;
 * and what cannot be read is refused with one line.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { mutantEntries } from '../../model/mutants/kill-table.js';
import { runWorld } from '../../model/world/property.js';
import { SEED_SCENARIOS } from '../../model/world/scenarios.js';
import {
  formatCommands,
  formatWorldString,
  namesOf,
  parseCommands,
  parseWorldString,
  subjectOf,
} from '../../src/explore/world-string.js';
import { announceSeed } from '../support/seed.js';
import { recordedArb } from './recorded.js';
import { runs } from './helpers.js';

const SEED = announceSeed('properties/world/world-string.test.ts');

describe('world strings', () => {
  test('read back, a generated world is the same world (same spec, same timeline)', () => {
    fc.assert(
      fc.property(recordedArb, ({ cfg, commands, client, world }) => {
        const spec = parseWorldString(formatWorldString({ cfg, commands, client }));
        expect(spec).toEqual({ cfg, commands, client });
        const again = runWorld(spec.cfg, spec.commands, subjectOf(spec), { record: true });
        expect(again.timeline).toEqual(world.timeline);
      }),
      { seed: SEED, numRuns: runs(200) },
    );
  });

  test('repeats are folded, and a changed count is another world', () => {
    const s = SEED_SCENARIOS.find((x) => x.name === 'seven-minute-stall')!;
    const text = formatCommands(s.commands);
    expect(text).toBe(
      '(Advance(8000),Emit)*41,Drain,SaturateApp,(Advance(1000),Emit)*89,Advance(1000),ReleaseApp,Advance(1000)',
    );
    expect(parseCommands(text)).toEqual(s.commands);
    expect(parseCommands(text.replace('*41', '*40'))).toHaveLength(s.commands.length - 2);
    for (const sc of SEED_SCENARIOS)
      expect(
        formatWorldString({ cfg: sc.cfg, commands: sc.commands, client: 'model' }).length,
      ).toBeLessThan(320);
  });

  test('every probe of the mutant zoo runs a subject that has names, and the names give it back', () => {
    for (const entry of mutantEntries())
      for (const probe of entry.probes) {
        const cfg = { ...SEED_SCENARIOS[0]!.cfg, policy: 'honest' as const };
        const names = namesOf(probe.subject, cfg);
        const back = subjectOf(names);
        expect(back.machine, `${entry.name} ${probe.kind}`).toBe(probe.subject.machine);
        expect(back.behaviour ?? {}).toEqual(probe.subject.behaviour ?? {});
        expect(back.policy).toBe(probe.subject.policy);
      }
  });

  test.each([
    ['world:v2;client=model', /starts with world:v1/],
    ['world:v1;client=nobody', /client must be one of model, trusts-any-200/],
    ['world:v1;server=nope', /server must be one of/],
    ['world:v1;config=Z=1', /unknown config key "Z"/],
    ['world:v1;commands=Emit,Jump', /unknown command "Jump"/],
    ['world:v1;commands=(Emit,Drain', /not closed/],
    ['world:v1;commands=Advance(x)', /Advance needs milliseconds/],
    ['world:v1;colour=red', /unknown section/],
  ])('%s is refused with one line', (text, message) => {
    expect(() => parseWorldString(text)).toThrow(message);
    try {
      parseWorldString(text);
    } catch (e) {
      expect((e as Error).message.split('\n')).toHaveLength(1);
    }
  });
});
