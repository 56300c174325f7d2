// Following a field reads only the path's part of each payload; it must answer exactly what
// walking the whole stored payloads answers.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readJourneyPayloads, readJourneyPayloadsAt } from '../query/journey-payloads.ts';
import { createReadFixture, ingest, type ReadFixture } from '../query/test-fixtures.ts';
import { leadingKeys, parseFieldPath, type PathSegment } from './field-path.ts';
import { followField } from './follow-field.ts';
import { contactJourney } from './test-journeys.ts';

let fx: ReadFixture;
const at = (second: number) => `2026-02-10T11:00:0${second}.000Z`;

beforeAll(async () => {
  fx = await createReadFixture();
  await ingest(fx, 'production', [
    ...contactJourney('jrn-tricky', 'lost'),
    { id: 't-1', journeyId: 'jrn-tricky', timestamp: at(1), input: { a: { b: null }, '0': { x: 1 }, list: [{ '0': 'key' }, 'e'] }, output: { a: 'plain', password: { inner: 1 } } },
    { id: 't-2', journeyId: 'jrn-tricky', timestamp: at(2), input: ['root', { a: 1 }], output: { __proto__: { polluted: 1 }, a: { b: 2 } } },
    { id: 't-3', journeyId: 'jrn-tricky', timestamp: at(3), output: { '-1': 'minus', a: { b: [1, 2] } } },
    { id: 't-4', journeyId: 'jrn-tricky', timestamp: at(4), name: 'no payload' },
  ]);
});
afterAll(async () => fx.close());

it.each([
  'customer.phone', 'customer', 'contact.name', 'a', 'a.b', 'a.b[1]', 'a.b[*]', 'password', 'password.inner',
  '0', '0.x', 'list[0].0', 'list[*]', '[0]', '[*].a', '__proto__', '__proto__.polluted', '-1', 'nothing.here',
])('path %s reads the same pruned as whole', async (path) => {
  const segments = parseFieldPath(path) as PathSegment[];
  const scope = { projectId: fx.projectId, environmentId: null, environmentName: null };
  const whole = await readJourneyPayloads(fx.db.pool, scope, 'jrn-tricky', 100);
  const pruned = await readJourneyPayloadsAt(fx.db.pool, scope, 'jrn-tricky', leadingKeys(segments), 100);
  expect(await followField(pruned!, segments)).toEqual(await followField(whole!, segments));
});
