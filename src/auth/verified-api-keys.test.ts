import { describe, expect, it } from 'vitest';
import { VerifiedApiKeys, type VerifiedApiKey } from './verified-api-keys.ts';

const key = (prefix: string): VerifiedApiKey => ({
  id: `id-${prefix}`, prefix, projectId: 'p', environmentId: 'e', environmentName: 'production', hash: 'h', hashKeyId: 'k',
  environment: { projectId: 'p', id: 'e', name: 'production', captureMode: 'redacted-payload', retentionDays: 30, redactionPaths: [], captureAllowlist: [] },
});

describe('VerifiedApiKeys', () => {
  it('keeps at most its bound, dropping the oldest entry first', () => {
    const keys = new VerifiedApiKeys(3);
    for (const prefix of ['a', 'b', 'c']) keys.remember(key(prefix));
    keys.remember(key('a')); // seen again: now the newest
    keys.remember(key('d'));
    expect(keys.size).toBe(3);
    expect(keys.get('b')).toBeUndefined();
    expect(['a', 'c', 'd'].map((p) => keys.get(p)?.prefix)).toEqual(['a', 'c', 'd']);
  });

  it('forgets a key', () => {
    const keys = new VerifiedApiKeys();
    keys.remember(key('a'));
    keys.forget('a');
    expect(keys.get('a')).toBeUndefined();
  });
});
