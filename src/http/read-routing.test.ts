import { describe, expect, it } from 'vitest';
import { FRESH_WRITE_COOKIE, hasFreshWrite } from './read-routing.ts';

describe('the fresh-write cookie', () => {
  const now = 1_800_000_000_000;
  const window = 3_000;

  it('sends the reads to the primary until its expiry', () => {
    expect(hasFreshWrite(`${FRESH_WRITE_COOKIE}=${now + 2_000}`, now, window)).toBe(true);
    expect(hasFreshWrite(`session=abc; ${FRESH_WRITE_COOKIE}=${now + window}; other=1`, now, window)).toBe(true);
  });

  it('is ignored when expired, absent, malformed or further ahead than the window', () => {
    expect(hasFreshWrite(undefined, now, window)).toBe(false);
    expect(hasFreshWrite('session=abc', now, window)).toBe(false);
    expect(hasFreshWrite(`${FRESH_WRITE_COOKIE}=${now}`, now, window)).toBe(false);
    expect(hasFreshWrite(`${FRESH_WRITE_COOKIE}=${now + window + 1}`, now, window)).toBe(false);
    expect(hasFreshWrite(`${FRESH_WRITE_COOKIE}=soon`, now, window)).toBe(false);
    expect(hasFreshWrite(`${FRESH_WRITE_COOKIE}=-5`, now, window)).toBe(false);
  });
});
