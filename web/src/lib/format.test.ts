import { expect, it } from 'vitest';
import { entityIdText, journeyTitle } from './format.ts';

it('titles a journey by its label, else by its entity', () => {
  expect(journeyTitle({ label: 'Order 42', entity: { type: 'order', id: 'ord_42' } })).toBe('Order 42');
  expect(journeyTitle({ label: null, entity: { type: 'order', id: 'ord_42' } })).toBe('order ord_42');
});

it('says so when no configured key opens the entity id, instead of printing null', () => {
  expect(entityIdText(null)).toBe('(unreadable id)');
  expect(journeyTitle({ label: null, entity: { type: 'order', id: null } })).toBe('order (unreadable id)');
});
