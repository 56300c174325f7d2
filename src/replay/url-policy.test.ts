import { describe, expect, it } from 'vitest';
import { buildTargetUrl, checkReplayPath, hasDotSegment, isHostAllowed, normalizeBaseUrl } from './url-policy.ts';

describe('normalizeBaseUrl', () => {
  it.each([
    ['http://localhost:3000', 'http://localhost:3000'],
    ['HTTPS://Example.COM:443/api/', 'https://example.com/api'],
    ['http://127.0.0.1:8080/hooks/v1', 'http://127.0.0.1:8080/hooks/v1'],
    ['http://[::1]:9000/', 'http://[::1]:9000'],
    ['http://example.com/a%20b', 'http://example.com/a%20b'],
  ])('accepts %s as %s', (raw, normalized) => {
    expect(normalizeBaseUrl(raw)).toEqual({ ok: true, value: normalized });
  });

  it.each([
    '',
    'example.com',
    'ftp://example.com',
    'http:example.com',
    'http:/example.com',
    '//example.com/api',
    'http://example.com/api?x=1',
    'http://example.com/api?',
    'http://example.com/#frag',
    'http://user:pass@example.com',
    'http://@example.com',
    'http://example.com/../etc',
    'http://example.com/api/./x',
    'http://example.com/api/..',
    'http://example.com/%2e%2e/x',
    'http://example.com/%2E./x',
    'http://example.com/.%2e',
    'http://example.com/a%2f..%2fb',
    'http://example.com/%252e%252e/x',
    'http://example.com/..;x/y',
    'http://example.com\\api',
    'http://example.com/a b',
    ' http://example.com',
    'http://example.com/\u0000',
    'http://example.com/%zz',
    'http://',
    'http://example.com:99999',
  ])('refuses %j', (raw) => {
    expect(normalizeBaseUrl(raw).ok).toBe(false);
  });
});

describe('checkReplayPath', () => {
  it.each(['', '/', '/orders', 'orders/42', '/orders?source=replay&next=../x', '/a%20b', '/v1/orders:batch', '/a..b/c.d'])(
    'accepts %j',
    (path) => {
      expect(checkReplayPath(path).ok).toBe(true);
    },
  );

  it.each([
    'http://evil.example/x',
    'HTTPS://evil.example',
    'javascript:alert(1)',
    'mailto:x@example.com',
    '//evil.example/x',
    '\\\\evil.example/x',
    '/\\evil.example',
    '/../admin',
    '../admin',
    '/a/../../b',
    '/a/./b',
    '/%2e%2e/admin',
    '/%2E%2e/admin',
    '/.%2E/admin',
    '/a%2f..%2fadmin',
    '/a%5c..%5cadmin',
    '/%252e%252e/admin',
    '/..;jsessionid=1/admin',
    '/a#b',
    '/a b',
    '/a\r\nx: y',
    '/caf\u00e9',
    '/%zz',
  ])('refuses %j', (path) => {
    expect(checkReplayPath(path).ok).toBe(false);
  });
});

describe('buildTargetUrl', () => {
  it('appends the path below the base path', () => {
    expect(buildTargetUrl('http://localhost:3000/api', '/orders?x=1').href).toBe('http://localhost:3000/api/orders?x=1');
    expect(buildTargetUrl('http://localhost:3000/api', 'orders').href).toBe('http://localhost:3000/api/orders');
    expect(buildTargetUrl('http://localhost:3000/api', '').href).toBe('http://localhost:3000/api');
    expect(buildTargetUrl('http://localhost:3000', '').href).toBe('http://localhost:3000/');
    expect(buildTargetUrl('http://localhost:3000', '/').href).toBe('http://localhost:3000/');
  });
});

describe('isHostAllowed', () => {
  it('compares exact host names, ignoring case and port', () => {
    expect(isHostAllowed('localhost', ['localhost'])).toBe(true);
    expect(isHostAllowed('LocalHost', ['localhost'])).toBe(true);
    expect(isHostAllowed('api.example.com', ['example.com'])).toBe(false);
    expect(isHostAllowed('example.com', ['*.example.com'])).toBe(false);
    expect(isHostAllowed('[::1]', ['::1'])).toBe(true);
    expect(isHostAllowed('localhost', [])).toBe(false);
  });
});

describe('hasDotSegment', () => {
  it('finds raw, encoded and double-encoded dot segments only', () => {
    expect(hasDotSegment('/a/b.c/..d')).toBe(false);
    expect(hasDotSegment('/a/%2e')).toBe(true);
    expect(hasDotSegment('/a/%252E%252E')).toBe(true);
  });
});
