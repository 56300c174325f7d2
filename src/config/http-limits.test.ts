import { describe, expect, it } from 'vitest';
import { ConfigError } from './config.ts';
import { DEFAULT_HTTP_LIMITS, loadHttpLimits } from './http-limits.ts';

describe('HTTP limits', () => {
  it('defaults: stalled headers closed within 10 s, a stalled body within 30 s', () => {
    expect(loadHttpLimits({})).toEqual({ headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, idleTimeoutMs: 72_000, maxConnections: 1_000, writeTimeoutMs: 30_000 });
    expect(loadHttpLimits({ HTTP_HEADERS_TIMEOUT_MS: ' ' })).toEqual(DEFAULT_HTTP_LIMITS);
  });

  it('reads each variable', () => {
    expect(
      loadHttpLimits({ HTTP_HEADERS_TIMEOUT_MS: '200', HTTP_REQUEST_TIMEOUT_MS: '500', HTTP_IDLE_TIMEOUT_MS: '300', HTTP_MAX_CONNECTIONS: '5', HTTP_WRITE_TIMEOUT_MS: '400' }),
    ).toEqual({ headersTimeoutMs: 200, requestTimeoutMs: 500, idleTimeoutMs: 300, maxConnections: 5, writeTimeoutMs: 400 });
  });

  it.each([
    ['HTTP_HEADERS_TIMEOUT_MS', '0'],
    ['HTTP_REQUEST_TIMEOUT_MS', '1.5'],
    ['HTTP_IDLE_TIMEOUT_MS', '-1'],
    ['HTTP_MAX_CONNECTIONS', 'many'],
    ['HTTP_WRITE_TIMEOUT_MS', '99'],
  ])('refuses %s=%s naming the variable', (name, value) => {
    expect(() => loadHttpLimits({ [name]: value })).toThrow(ConfigError);
    expect(() => loadHttpLimits({ [name]: value })).toThrow(name);
  });

  it('refuses a header timeout longer than the request timeout', () => {
    expect(() => loadHttpLimits({ HTTP_HEADERS_TIMEOUT_MS: '20000', HTTP_REQUEST_TIMEOUT_MS: '10000' })).toThrow('HTTP_HEADERS_TIMEOUT_MS');
  });
});
