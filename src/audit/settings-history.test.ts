import { describe, expect, it } from 'vitest';
import { changedSettings } from './settings-history.ts';

describe('changedSettings', () => {
  it('keeps only the keys whose values differ', () => {
    expect(changedSettings({ captureMode: 'metadata-only', retentionDays: 30 }, { captureMode: 'metadata-only', retentionDays: 7 }))
      .toEqual({ before: { retentionDays: 30 }, after: { retentionDays: 7 } });
  });

  it('compares lists by their items, in order', () => {
    expect(changedSettings({ redactionPaths: ['a', 'b'] }, { redactionPaths: ['a', 'b'] })).toBeNull();
    expect(changedSettings({ redactionPaths: ['a', 'b'] }, { redactionPaths: ['b', 'a'] }))
      .toEqual({ before: { redactionPaths: ['a', 'b'] }, after: { redactionPaths: ['b', 'a'] } });
  });

  it('reads a key missing on one side as null', () => {
    expect(changedSettings({ name: 'a' }, { name: 'a', baseUrl: 'http://x' }))
      .toEqual({ before: { baseUrl: null }, after: { baseUrl: 'http://x' } });
  });
});
