/** docs/incident.md shows the seed's three incidents as the simulated world records them. */
import { readFile } from 'node:fs/promises';
import { expect, test } from 'vitest';
import { SEED_SCENARIOS } from '../../model/world/scenarios.js';
import {
  INCIDENT_BEGIN,
  INCIDENT_END,
  incidentBlock,
  scenarioDiagram,
} from '../../src/docs-gen/incident-diagrams.js';
import { findBlock } from '../../model/marked-block.js';
import { subjectOf } from '../../src/explore/world-string.js';

test('docs/incident.md holds the incident diagrams the world records (npm run docs:incident)', async () => {
  const doc = await readFile(new URL('../../docs/incident.md', import.meta.url), 'utf8');
  const committed = findBlock(doc, INCIDENT_BEGIN, INCIDENT_END);
  expect(committed, 'incident-diagrams markers missing').not.toBeNull();
  expect(committed, 'docs/incident.md is stale: run `npm run docs:incident`').toBe(
    incidentBlock().text,
  );
  expect(committed!.match(/```mermaid\nsequenceDiagram\n/g)).toHaveLength(3);
  // The check has teeth: another client in the same world draws another diagram.
  const naive = subjectOf({ client: 'trusts-any-200' });
  for (const s of SEED_SCENARIOS.filter((x) => x.name !== 'restart-404'))
    expect(committed).not.toContain(scenarioDiagram(s, naive));
});
