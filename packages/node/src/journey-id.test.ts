import { describe, expect, it } from 'vitest';
import { deriveJourneyId, isUsableSecret, randomJourneyId } from './journey-id.ts';

const SECRET = 'journey id test vector secret one, not a real key';

describe('journey ids (event protocol 4.5, 4.6)', () => {
  it.each([
    ['production', 'job_posting', 'greenhouse:4567', 'jrn_03229a6b36d35d0f9ba7e23793d64693'],
    ['staging', 'job_posting', 'greenhouse:4567', 'jrn_2de9db70f99c00a8a83d74339c1faba3'],
    ['prod', 'ab', 'c', 'jrn_739726cd7fde29947be987b3bf09156d'],
    ['prod', 'a', 'bc', 'jrn_36d3f707b064a260431361731f1b32d7'],
  ])('derives the contract vector for %s / %s / %s', (environment, type, id, expected) => {
    expect(deriveJourneyId(SECRET, environment, { type, id })).toBe(expected);
  });

  it('refuses to derive from a string with an unpaired surrogate', () => {
    expect(deriveJourneyId(SECRET, 'prod', { type: 'order', id: 'a\uD800b' })).toBeNull();
    expect(deriveJourneyId(SECRET, 'prod', { type: 'order', id: 'a\uD834\uDD1Eb' })).toMatch(/^jrn_[0-9a-f]{32}$/);
  });

  it('needs a secret of 32 bytes or more', () => {
    expect(isUsableSecret('x'.repeat(31))).toBe(false);
    expect(isUsableSecret('x'.repeat(32))).toBe(true);
  });

  it('makes random ids as jrn_ and a UUID', () => {
    expect(randomJourneyId()).toMatch(/^jrn_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(randomJourneyId()).not.toBe(randomJourneyId());
  });
});
