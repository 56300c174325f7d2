import { expect, it } from 'vitest';
import { entityIdText, formatDuration, journeyTitle } from './format.ts';

it('titles a journey by its label, else by its entity', () => {
  expect(journeyTitle({ label: 'Order 42', entity: { type: 'order', id: 'ord_42' } })).toBe('Order 42');
  expect(journeyTitle({ label: null, entity: { type: 'order', id: 'ord_42' } })).toBe('order ord_42');
});

it('says so when no configured key opens the entity id, instead of printing null', () => {
  expect(entityIdText(null)).toBe('(unreadable id)');
  expect(journeyTitle({ label: null, entity: { type: 'order', id: null } })).toBe('order (unreadable id)');
});

it('rounds a duration as a whole before splitting it, so a carry moves to the larger unit', () => {
  const cases: [number, string][] = [
    [0, '0 ms'],
    [999, '999 ms'],
    [999.6, '1.00 s'],
    [1000, '1.00 s'],
    [9_994, '9.99 s'],
    [9_996, '10.0 s'],
    [59_949, '59.9 s'],
    [59_950, '1 min'],
    [60_000, '1 min'],
    [61_400, '1 min 1 s'],
    [119_500, '2 min'],
    [599_499, '9 min 59 s'],
    [599_700, '10 min'],
    [3_599_400, '59 min 59 s'],
    [3_599_500, '1 h'],
    [3_629_999, '1 h'],
    [3_630_000, '1 h 1 min'],
    [86_369_999, '23 h 59 min'],
    [86_370_000, '1 d'],
    [88_200_000, '1 d 1 h'],
    [171_000_000, '2 d'],
  ];
  for (const [ms, text] of cases) expect(formatDuration(ms), `${ms} ms`).toBe(text);
  expect(formatDuration(null)).toBe('—');
});
