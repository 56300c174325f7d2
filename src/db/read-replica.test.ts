import { describe, expect, it } from 'vitest';
import { lagFromHistory, lsnBytes } from './read-replica.ts';

describe('the replica lag from WAL positions', () => {
  it('reads an LSN as bytes, both halves in hex', () => {
    expect(lsnBytes('0/0')).toBe(0);
    expect(lsnBytes('0/16B3748')).toBe(0x16b3748);
    expect(lsnBytes('16/B374D848')).toBe(0x16 * 2 ** 32 + 0xb374d848);
  });

  it('is 0 when the replica has replayed every position the primary had, however old the last one', () => {
    const history = [{ at: 1_000, lsn: 100 }, { at: 2_000, lsn: 200 }];
    expect(lagFromHistory(history, 200, 600_000)).toBe(0);
    expect(lagFromHistory(history, 250, 600_000)).toBe(0);
    expect(lagFromHistory([], 0, 5_000)).toBe(0);
  });

  it('is the age of the oldest primary position not yet replayed', () => {
    const history = [{ at: 1_000, lsn: 100 }, { at: 2_000, lsn: 200 }, { at: 3_000, lsn: 300 }];
    expect(lagFromHistory(history, 150, 3_500)).toBe(1_500);
    expect(lagFromHistory(history, 99, 3_500)).toBe(2_500);
    expect(lagFromHistory(history, 299, 3_500)).toBe(500);
  });
});
