import { describe, expect, it } from 'vitest';
import { valueAt, verdictOf } from './verdict.ts';

describe('valueAt', () => {
  it('reads object keys, array indexes and keys that hold a dot', () => {
    const payload = { customer: { phone: '+44', 'a.b': { c: 1 } }, items: [{ sku: 'x' }, { sku: 'y' }] };
    expect(valueAt(payload, 'customer.phone')).toEqual({ found: true, value: '+44' });
    expect(valueAt(payload, 'items[1].sku')).toEqual({ found: true, value: 'y' });
    expect(valueAt(payload, 'customer.a.b.c')).toEqual({ found: true, value: 1 });
    expect(valueAt(payload, 'items[2].sku')).toEqual({ found: false });
    expect(valueAt(payload, 'customer.phone.x')).toEqual({ found: false });
    expect(valueAt({ customer: { phone: null } }, 'customer.phone')).toEqual({ found: true, value: null });
    expect(valueAt({ customer: { phones: 1 } }, 'customer.phone')).toEqual({ found: false });
  });
});

describe('verdictOf', () => {
  const input = { customer: { name: 'Ada', phone: '+44 20 7946 0018' } };
  it('a lost field is kept when the answer has it, whatever its value', () => {
    expect(verdictOf('lost', 'customer.phone', input, { customer: { phone: '+44' } })).toBe('kept');
    expect(verdictOf('lost', 'customer.phone', input, { customer: { name: 'Ada' } })).toBe('still_lost');
    expect(verdictOf('lost', 'customer.phone', input, 'text')).toBe('still_lost');
  });
  it('a changed field is kept when the answer holds the input value', () => {
    expect(verdictOf('changed', 'customer.phone', input, { customer: { phone: '+44 20 7946 0018' } })).toBe('kept');
    expect(verdictOf('changed', 'customer.phone', input, { customer: { phone: '+442079460018' } })).toBe('still_lost');
    expect(verdictOf('changed', 'customer', { customer: { a: 1, b: [1, 2] } }, { customer: { b: [1, 2], a: 1 } })).toBe('kept');
    expect(verdictOf('changed', 'customer.phone', input, {})).toBe('still_lost');
  });
});
