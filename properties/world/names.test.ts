/**
 * A name says one thing (issue 32, C5): `restart-404` was both the seed's scenario of a correct
 * server (an in-memory store restarts, 404, the client re-initializes) and a faulty server
 * policy (404 after a restart although the store is durable). The faulty one is now
 * `durable-restart-404`. A seed scenario may share its name with a faulty policy only when it
 * shows that very fault (`restart-empty-200`: the implicit re-creation), never when its server
 * answers correctly.
 */
import { expect, test } from 'vitest';
import { FAULTY_POLICIES } from '../../model/world/config.js';
import { SEED_SCENARIOS } from '../../model/world/scenarios.js';

test('no scenario of a correct server shares its name with a faulty server policy', () => {
  // (The seven-minute stall restarts nothing: its server is the seed's ring buffer.)
  const correct = SEED_SCENARIOS.filter(
    (s) => s.cfg.onRestart === '404' && s.commands.some((c) => c.kind === 'Restart'),
  ).map((s) => s.name);
  expect(correct).toEqual(['restart-404']);
  for (const name of correct) expect(FAULTY_POLICIES).not.toContain(name);
  expect(FAULTY_POLICIES).toContain('durable-restart-404');
});
