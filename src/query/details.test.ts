import { describe, expect, it } from 'vitest';
import { encryptField } from '../crypto/field-encryption.ts';
import { createKeyring } from '../crypto/keyring.ts';
import { aliasViews } from './details.ts';
import type { AliasRecord } from './details-sql.ts';

const keyring = createKeyring({ current: 'details-test-key-0123456789abcdefghijklmnopqrstu' });

function rows(count: number): AliasRecord[] {
  return Array.from({ length: count }, (_, i) => ({ id: i + 1, alias_type: `ref${i}`, value_encrypted: encryptField(keyring, `customer-${i}@example.com`), displayable: i % 2 === 0 }));
}

describe('aliasViews', () => {
  it('decrypts and masks by the current flag', async () => {
    expect(await aliasViews(keyring, rows(2))).toEqual([
      { type: 'ref0', displayValue: 'customer-0@example.com', displayable: true },
      { type: 'ref1', displayValue: 'cust…com', displayable: false },
    ]);
  });

  it('gives the event loop back while it decrypts thousands of aliases, and only then', async () => {
    const letOthersIn = async (count: number) => {
      let ran = false;
      setImmediate(() => {
        ran = true;
      });
      const views = await aliasViews(keyring, rows(count));
      expect(views).toHaveLength(count);
      return ran;
    };
    expect(await letOthersIn(2_500)).toBe(true);
    expect(await letOthersIn(1_000)).toBe(false);
  });
});
