import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createKeyring, requireSubkey } from '../crypto/keyring.ts';
import { stateHasher } from './walk-state.ts';

const keyring = createKeyring({ current: 'walk-state-test-key-0123456789abcdefghijklmnop' });
const other = createKeyring({ current: 'another-walk-state-key-0123456789abcdefghijkl' });
/** The hash as defined: HMAC-SHA-256 under the analysis-state subkey, 96 bits in base64url. */
const expected = (text: string, ring = keyring) =>
  createHmac('sha256', requireSubkey(ring, 'analysisState', 'current').key).update(text, 'utf8').digest('base64url').slice(0, 16);

describe('the walk state hasher', () => {
  it('gives the keyed hash of a text, remembered or not, short or long', () => {
    const { hash } = stateHasher(keyring);
    const texts = ['lost\u0000customer.phone', 'é'.repeat(300), 'x'.repeat(513), '{"customer":{"phone":"+33 6 12 34 56 78"}}'.repeat(40)];
    for (let round = 0; round < 3; round++) for (const text of texts) expect(hash(text)).toBe(expected(text));
  });

  it('depends on the key: a remembered hash is never another key\'s', () => {
    const first = stateHasher(keyring);
    const second = stateHasher(other);
    expect(first.hash('lost\u0000customer.phone')).toBe(expected('lost\u0000customer.phone'));
    expect(second.hash('lost\u0000customer.phone')).toBe(expected('lost\u0000customer.phone', other));
    expect(second.hash('lost\u0000customer.phone')).not.toBe(first.hash('lost\u0000customer.phone'));
  });

  it('stays right past the texts it remembers at most', () => {
    const { hash } = stateHasher(keyring);
    for (let i = 0; i < 20_000; i++) hash(`changed\u0000items[${i}].sku`);
    for (const i of [0, 8_191, 8_192, 19_999]) expect(hash(`changed\u0000items[${i}].sku`)).toBe(expected(`changed\u0000items[${i}].sku`));
  });
});
