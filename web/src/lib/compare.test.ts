import { expect, it } from 'vitest';
import type { ComparedPair, ComparedStep } from '../api.ts';
import { differsInSubstance, firstLosses, readPair, summarize } from './compare.ts';

const step = (name: string, service = 'svc'): ComparedStep => ({
  index: 0,
  eventId: `evt_${name}`,
  service,
  name,
  operation: 'transformed',
  eventTimestamp: '2026-01-01T00:00:00.000Z',
  durationMs: 5,
  hasError: false,
  inputStored: true,
  outputStored: true,
});

const pair = (name: string, input: ComparedPair['inputDiff'], output: ComparedPair['outputDiff'], extra: Partial<ComparedPair> = {}): ComparedPair => ({
  status: 'matched',
  a: step(name),
  b: step(name),
  inputDiff: input,
  outputDiff: output,
  differs: true,
  ...extra,
});

const entityRows = { rows: [{ path: 'customer.name', kind: 'changed' as const, before: 'Ada', after: 'Tim' }], truncated: false };

it('sets values that differ in both journeys apart from a value one journey lost', () => {
  const receive = readPair(pair('receive', entityRows, null), 0);
  expect(receive.oneSided).toEqual([]);
  expect(receive.entityValues.map((r) => r.path)).toEqual(['customer.name']);
  expect(differsInSubstance(receive)).toBe(false);

  const normalize = readPair(
    pair('normalize', entityRows, { rows: [...entityRows.rows, { path: 'customer.phone', kind: 'changed', before: null, after: '+44' }], truncated: false }),
    1,
  );
  expect(normalize.oneSided).toMatchObject([{ path: 'customer.phone', lacking: 'A', payload: 'output', value: '+44' }]);
  expect(differsInSubstance(normalize)).toBe(true);

  const later = readPair(pair('persist', { rows: [{ path: 'customer.phone', kind: 'added', after: '+44' }], truncated: false }, null), 2);
  const firsts = firstLosses([receive, normalize, later]);
  expect(firsts).toHaveLength(1);
  expect(summarize([receive, normalize, later], firsts)).toBe('A lost customer.phone at svc · normalize (output); B kept it.');
});

it('says when the journeys differ only in entity values, and when not at all', () => {
  const readings = [readPair(pair('receive', entityRows, entityRows), 0)];
  expect(summarize(readings, firstLosses(readings))).toBe('Neither journey lost a value the other kept: 1 step differs only in values that depend on the entity.');
  const same = [readPair(pair('receive', null, null, { differs: false }), 0)];
  expect(summarize(same, firstLosses(same))).toBe('The two journeys do not differ.');
});

it('names a value B lost and a step only one journey ran', () => {
  const readings = [
    readPair(pair('normalize', null, { rows: [{ path: 'email', kind: 'lost', before: 'a@x' }], truncated: false }), 0),
    readPair({ ...pair('retry', null, null), status: 'only_b', a: null }, 1),
  ];
  expect(summarize(readings, firstLosses(readings))).toBe('B lost email at svc · normalize (output); A kept it; 1 step differs in the steps themselves.');
});
