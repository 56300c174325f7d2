import { describe, expect, it } from 'vitest';
import { checkDestinationHeaders, scrubText, scrubbableValues, storedRequestHeaders } from './header-policy.ts';
import { storedResponsePayload } from './response-payload.ts';

describe('checkDestinationHeaders', () => {
  it('accepts token names and plain string values, including none', () => {
    expect(checkDestinationHeaders({})).toEqual({ ok: true, value: {} });
    expect(checkDestinationHeaders({ Authorization: 'Bearer abc', 'X-Tenant': 'acme' })).toEqual({
      ok: true,
      value: { Authorization: 'Bearer abc', 'X-Tenant': 'acme' },
    });
  });

  it.each([
    [[], 'headers'],
    [null, 'headers'],
    ['x', 'headers'],
    [{ 'bad name': 'x' }, 'headers'],
    [{ 'x-a\u0000': 'x' }, 'headers'],
    [{ '': 'x' }, 'headers'],
    [{ 'x-a': 1 }, 'headers.x-a'],
    [{ 'x-a': 'a\r\nb' }, 'headers.x-a'],
    [{ 'x-a': 'a\nb' }, 'headers.x-a'],
    [{ 'x-a': 'a\u0000b' }, 'headers.x-a'],
    [{ 'Content-Type': 'text/plain' }, 'headers.Content-Type'],
    [{ 'x-service-replay': 'x' }, 'headers.x-service-replay'],
    [{ Host: 'evil' }, 'headers.Host'],
    [{ 'X-A': '1', 'x-a': '2' }, 'headers.x-a'],
  ])('refuses %j at %s', (value, path) => {
    const checked = checkDestinationHeaders(value);
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.problems.map((p) => p.path)).toContain(path);
  });
});

describe('storedRequestHeaders', () => {
  it('redacts every destination header and keeps the replay’s own', () => {
    expect(storedRequestHeaders(['Authorization', 'X-Tenant'], { 'content-type': 'application/json', 'x-service-replay': 'r1' })).toEqual({
      Authorization: '[REDACTED]',
      'X-Tenant': '[REDACTED]',
      'content-type': 'application/json',
      'x-service-replay': 'r1',
    });
  });

  it('lists a destination header named __proto__ as an own key', () => {
    const stored = storedRequestHeaders(['__proto__', 'X-Tenant'], { 'content-type': 'application/json' });
    expect(Object.keys(stored)).toEqual(['__proto__', 'X-Tenant', 'content-type']);
    expect(Object.getPrototypeOf(stored)).toBe(Object.prototype);
    expect(JSON.parse(JSON.stringify(stored))).toEqual(JSON.parse('{"__proto__":"[REDACTED]","X-Tenant":"[REDACTED]","content-type":"application/json"}'));
  });
});

describe('scrubbing', () => {
  it('replaces values of at least 8 characters, longest first, inside any text', () => {
    const values = scrubbableValues({ a: 'short', b: 'secret-123', c: 'secret-123-longer' });
    expect(values).toEqual(['secret-123-longer', 'secret-123']);
    expect(scrubText('x secret-123-longer y secret-123 z short', values)).toBe('x [REDACTED] y [REDACTED] z short');
  });

  it('scrubs keys and strings of a JSON response and keeps __proto__ an ordinary key', () => {
    const body = Buffer.from('{"echo":{"authorization":"Bearer tok-12345678"},"tok-12345678":1,"__proto__":{"x":"tok-12345678!"}}');
    const stored = storedResponsePayload(body, ['Bearer tok-12345678', 'tok-12345678']) as Record<string, unknown>;
    expect(JSON.stringify(stored)).toBe('{"echo":{"authorization":"[REDACTED]"},"[REDACTED]":1,"__proto__":{"x":"[REDACTED]!"}}');
    expect(Object.getPrototypeOf(stored)).toBe(Object.prototype);
  });

  it('stores text as a JSON string, an empty body as null, and makes values storable', () => {
    expect(storedResponsePayload(Buffer.from('plain tok-12345678 text'), ['tok-12345678'])).toBe('plain [REDACTED] text');
    expect(storedResponsePayload(Buffer.alloc(0), [])).toBeNull();
    expect(storedResponsePayload(Buffer.from('{"a":"x\\u0000y\\ud800"}'), [])).toEqual({ a: 'x\ufffdy\ufffd' });
  });

  it('keeps JSON nested past the cap as its text', () => {
    const deep = `${'['.repeat(150)}1${']'.repeat(150)}`;
    expect(storedResponsePayload(Buffer.from(deep), [])).toBe(deep);
  });
});
