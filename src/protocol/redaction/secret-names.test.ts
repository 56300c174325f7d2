import { describe, expect, it } from 'vitest';
import {
  BUILT_IN_SECRET_NAMES,
  KNOWN_HEADER_NAMES,
  foldName,
  isBuiltInSecretName,
  isKnownHeaderName,
} from './secret-names.ts';

describe('BUILT_IN_SECRET_NAMES', () => {
  it('holds the 22 names of 5.4', () => {
    expect(BUILT_IN_SECRET_NAMES).toHaveLength(22);
    expect(new Set(BUILT_IN_SECRET_NAMES.map(foldName)).size).toBe(22);
  });

  it.each(BUILT_IN_SECRET_NAMES.map((name) => [name]))('%s matches as sent and in other spellings', (name) => {
    expect(isBuiltInSecretName(name)).toBe(true);
    expect(isBuiltInSecretName(name.toUpperCase())).toBe(true);
    expect(isBuiltInSecretName(name.replaceAll('-', '_'))).toBe(true);
    expect(isBuiltInSecretName(name.replaceAll('_', '-'))).toBe(true);
    expect(isBuiltInSecretName(name.replace(/[-_]/g, ''))).toBe(true);
  });
});

describe('foldName', () => {
  it('lower-cases and deletes every - and _', () => {
    expect(foldName('X-Hub-Signature-256')).toBe('xhubsignature256');
    expect(foldName('__API--KEY__')).toBe('apikey');
    expect(foldName('')).toBe('');
  });

  it('does not depend on the locale (dotted capital I folds the same everywhere)', () => {
    expect(foldName('I')).toBe('i');
    expect(foldName('SECRET')).toBe('secret');
  });
});

describe('isBuiltInSecretName', () => {
  it.each(['apiKey', 'api-key', 'API_KEY', 'APIKey', 'api_key', 'Api-Key'])('%s matches api_key', (name) => {
    expect(isBuiltInSecretName(name)).toBe(true);
  });

  it.each([
    ['Authorization'],
    ['Proxy-Authorization'],
    ['setCookie'],
    ['X_API_KEY'],
    ['accessToken'],
    ['RefreshToken'],
    ['clientSecret'],
    ['creditCardNumber'],
    ['CC-NUMBER'],
    ['x-hubspot-signature-v3'],
    ['X_SHOPIFY_HMAC_SHA256'],
  ])('%s is a built-in in another convention', (name) => {
    expect(isBuiltInSecretName(name)).toBe(true);
  });

  it.each(['apiKeyRotation', 'secretary', 'passwordHint', 'token', 'cookies', 'sessionCredential', 'authToken'])(
    '%s matches nothing',
    (name) => {
      expect(isBuiltInSecretName(name)).toBe(false);
    },
  );
});

describe('isKnownHeaderName', () => {
  it('holds the 31 names of 5.6 and ignores case', () => {
    expect(KNOWN_HEADER_NAMES).toHaveLength(31);
    expect(isKnownHeaderName('Content-Type')).toBe(true);
    expect(isKnownHeaderName(':AUTHORITY')).toBe(true);
    expect(isKnownHeaderName('WWW-Authenticate')).toBe(true);
  });

  it('does not fold - and _', () => {
    expect(isKnownHeaderName('content_type')).toBe(false);
    expect(isKnownHeaderName('contenttype')).toBe(false);
    expect(isKnownHeaderName('x-internal-token')).toBe(false);
  });
});
