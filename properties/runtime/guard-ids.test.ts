/**
 * The default id reader reads a ContinuityEventStore id by one scan (guard-ids.ts,
 * `readStoreId`), not by `CONTINUITY_ID_PATTERN`: over generated ids, near misses included
 * (capitals, an empty part, a missing `s`, a trailing character, long digit runs), it reads
 * exactly what the pattern reads, and `defaultIdReader` exactly what the pattern or a plain
 * decimal of up to 15 digits reads. A scan that takes capitals in the epoch (`epoch-any-case`)
 * is caught.
 */
import { fc, test } from '@fast-check/vitest';
import { describe, expect, test as plain } from 'vitest';
import { CONTINUITY_ID_PATTERN } from '../../src/runtime/continuity-store.js';
import { defaultIdReader, readStoreId } from '../../src/runtime/guard-ids.js';
import { mutantReadStoreId, type StoreIdMutant } from '../../src/runtime-mutants/reader-mutants.js';
import { announceSeed, runs } from '../support/seed.js';

const seed = announceSeed('properties/runtime/guard-ids.test.ts');

/** What the pattern reads of `id` (the reference). */
function byPattern(id: string): { seq: number; stream: string } | null {
  const m = CONTINUITY_ID_PATTERN.exec(id);
  return m?.groups ? { seq: Number(m.groups.seq), stream: m.groups.stream! } : null;
}

/** Ids built from the parts of a store id and the characters that break one. */
const part = fc.oneof(
  fc.stringMatching(/^[0-9a-z]{1,6}$/),
  fc.stringMatching(/^[0-9]{1,20}$/),
  fc.constantFrom(
    '',
    '-',
    's',
    '-s',
    'A',
    'Z',
    'é',
    ' ',
    '\n',
    '0',
    '9',
    'a',
    'z',
    '/',
    ':',
    '`',
    '{',
  ),
);
const id = fc.oneof(
  fc.array(part, { maxLength: 7 }).map((ps) => ps.join('')),
  fc
    .tuple(
      fc.stringMatching(/^[0-9a-zA-Z]{1,6}$/),
      fc.stringMatching(/^\d{1,4}$/),
      fc.stringMatching(/^\d{1,20}$/),
    )
    .map(([epoch, k, seq]) => `${epoch}-s${k}-${seq}`),
  fc
    .tuple(
      part,
      part,
      part,
      // Separators near `-s`: another character before the `s`, a doubled one, a capital.
      fc.constantFrom('-s', '-S', '-', 's', '_s', 'As', ' s', '--s', '-ss', 'é-s'),
      fc.constantFrom('-', '_', '', 'A', '--'),
    )
    .map(([epoch, k, seq, s, dash]) => `${epoch}${s}${k}${dash}${seq}`),
);

function firstDifference(ids: string[], mutant?: StoreIdMutant): string | null {
  for (const x of ids) {
    const read = mutant ? mutantReadStoreId(x, mutant) : readStoreId(x);
    if (JSON.stringify(read) !== JSON.stringify(byPattern(x))) return x;
  }
  return null;
}

describe('the store id scan reads what CONTINUITY_ID_PATTERN reads', () => {
  test.prop([fc.array(id, { maxLength: 20 })], { seed, numRuns: runs(2000) })(
    'the same reading for every id',
    (ids) => {
      expect(firstDifference(ids)).toBeNull();
      for (const x of ids) {
        const expected = /^\d{1,15}$/.test(x) ? { seq: Number(x) } : byPattern(x);
        expect(defaultIdReader(x)).toEqual(expected);
      }
    },
  );

  plain('the property kills epoch-any-case', () => {
    const result = fc.check(
      fc.property(
        fc.array(id, { maxLength: 20 }),
        (ids) => firstDifference(ids, 'epoch-any-case') === null,
      ),
      { seed, numRuns: runs(2000) },
    );
    expect(result.failed, `epoch-any-case survived ${result.numRuns} runs (seed ${seed})`).toBe(
      true,
    );
  });

  plain('the generated ids hold store ids, plain decimals and near misses alike', () => {
    const sample = fc.sample(id, { seed, numRuns: 2000 });
    const store = sample.filter((x) => byPattern(x) !== null).length;
    const decimals = sample.filter((x) => /^\d{1,15}$/.test(x)).length;
    expect(store).toBeGreaterThan(20);
    expect(decimals).toBeGreaterThan(20);
    expect(sample.length - store - decimals).toBeGreaterThan(500);
  });

  plain('the readings the guard relies on', () => {
    expect(readStoreId('k3x9-s2-41')).toEqual({ seq: 41, stream: 'k3x9-s2' });
    expect(readStoreId('K3x9-s2-41')).toBeNull();
    expect(mutantReadStoreId('K3x9-s2-41', 'epoch-any-case')).toEqual({
      seq: 41,
      stream: 'K3x9-s2',
    });
    expect(readStoreId('k3x9-s2-')).toBeNull();
    expect(readStoreId('k3x9-s-4')).toBeNull();
    expect(readStoreId('-s2-4')).toBeNull();
    expect(readStoreId('k-s2-4x')).toBeNull();
    expect(readStoreId('k_s2-4')).toBeNull();
    expect(readStoreId('kAs2-4')).toBeNull();
    expect(readStoreId('k-s2_4')).toBeNull();
  });
});
