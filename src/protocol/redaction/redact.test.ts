import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileRules } from './operator-rules.ts';
import { BUILT_IN_SECRET_NAMES } from './secret-names.ts';
import { setOwn } from '../own-keys.ts';
import { REDACTED, createInPlaceRedactor, createRedactor, createSharingRedactor, endsWithTruncationMarker, maskHeaderLines, redactValue } from './redact.ts';

const R = REDACTED;
const rules = (...sources: string[]) => compileRules(sources).rules;

describe('redactValue: built-in names', () => {
  it.each(BUILT_IN_SECRET_NAMES.map((name) => [name]))('replaces %s at the root and in depth', (name) => {
    expect(redactValue({ [name]: 'v', keep: 1 })).toEqual({ [name]: R, keep: 1 });
    expect(redactValue({ a: [{ b: { [name.toUpperCase()]: 'v' } }] })).toEqual({ a: [{ b: { [name.toUpperCase()]: R } }] });
  });

  it('replaces a match of any type, keeping the key', () => {
    expect(redactValue({ password: { nested: 1 }, secret: [1, 2], api_key: 3, cookie: null, cc_number: true })).toEqual({
      password: R,
      secret: R,
      api_key: R,
      cookie: R,
      cc_number: R,
    });
  });

  it('matches folded spellings and nothing else', () => {
    const value = { apiKey: 'a', 'api-key': 'b', API_KEY: 'c', APIKey: 'd', apiKeyRotation: 'e', secretary: 'f' };
    expect(redactValue(value)).toEqual({
      apiKey: R,
      'api-key': R,
      API_KEY: R,
      APIKey: R,
      apiKeyRotation: 'e',
      secretary: 'f',
    });
  });

  it('leaves scalars and an unmatched root alone', () => {
    expect(redactValue('plain')).toBe('plain');
    expect(redactValue(42)).toBe(42);
    expect(redactValue(null)).toBeNull();
    expect(redactValue([1, 'a', { x: 1 }])).toEqual([1, 'a', { x: 1 }]);
  });

  it('never mutates its input and returns new containers', () => {
    const input = { a: { password: 'p' }, list: [{ token: 't' }] };
    const snapshot = structuredClone(input);
    const out = redactValue(input) as typeof input;
    expect(input).toEqual(snapshot);
    expect(out).not.toBe(input);
    expect(out.list).not.toBe(input.list);
    expect(out.a).toEqual({ password: R });
  });
});

describe('redactValue: __proto__ stays an ordinary own key', () => {
  it('keeps a parsed __proto__ key as an own property and sets no prototype', () => {
    const input = JSON.parse('{"__proto__":{"password":"p","x":1},"phone":"1"}') as Record<string, unknown>;
    const out = redactValue(input) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.hasOwn(out, '__proto__')).toBe(true);
    expect(Object.keys(out)).toEqual(['__proto__', 'phone']);
    expect(Object.getOwnPropertyDescriptor(out, '__proto__')?.value).toEqual({ password: R, x: 1 });
    expect(JSON.stringify(out)).toBe('{"__proto__":{"password":"[REDACTED]","x":1},"phone":"1"}');
    expect((out as { x?: unknown }).x).toBeUndefined();
  });

  it('applies a rule through a __proto__ key', () => {
    const input = JSON.parse('{"__proto__":{"ssn":"1"}}') as unknown;
    expect(JSON.stringify(redactValue(input, rules('__proto__.ssn')))).toBe('{"__proto__":{"ssn":"[REDACTED]"}}');
  });

  it('setOwn defines __proto__ as data', () => {
    const target: Record<string, unknown> = {};
    setOwn(target, '__proto__', { polluted: true });
    expect(Object.getPrototypeOf(target)).toBe(Object.prototype);
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
    expect(JSON.stringify(target)).toBe('{"__proto__":{"polluted":true}}');
  });
});

describe('redactValue: operator rules', () => {
  it('name.name matches a literal folded path from the root', () => {
    const value = { customer: { ssn: '1', name: 'n' }, other: { ssn: '2' }, Customer_: { SSN: '3' } };
    expect(redactValue(value, rules('customer.ssn'))).toEqual({
      customer: { ssn: R, name: 'n' },
      other: { ssn: '2' },
      Customer_: { SSN: R },
    });
  });

  it('* matches any object key at its level, never array elements', () => {
    expect(redactValue({ a: { pin: 1 }, b: { pin: 2 }, c: [{ pin: 3 }] }, rules('*.pin'))).toEqual({
      a: { pin: R },
      b: { pin: R },
      c: [{ pin: 3 }],
    });
    expect(redactValue({ a: 1, b: [1] }, rules('*'))).toEqual({ a: R, b: R });
    expect(redactValue([1, 2], rules('*'))).toEqual([1, 2]);
  });

  it('name[*] replaces or steps into every element under the key', () => {
    expect(redactValue({ items: [{ pin: '4', sku: 's' }, 'x'], pin: 'top' }, rules('items[*].pin'))).toEqual({
      items: [{ pin: R, sku: 's' }, 'x'],
      pin: 'top',
    });
    expect(redactValue({ tags: ['a', { b: 1 }], other: ['c'] }, rules('tags[*]'))).toEqual({ tags: [R, R], other: ['c'] });
    expect(redactValue({ tags: 'not an array' }, rules('tags[*]'))).toEqual({ tags: 'not an array' });
  });

  it('*[*] replaces the elements of every array at its level', () => {
    expect(redactValue({ a: [1], b: [2], c: 3 }, rules('*[*]'))).toEqual({ a: [R], b: [R], c: 3 });
  });

  it('[*] addresses the elements of a root array', () => {
    expect(redactValue([{ token: 1, id: 2 }, 'x'], rules('[*].token'))).toEqual([{ token: R, id: 2 }, 'x']);
    expect(redactValue([1, [2]], rules('[*]'))).toEqual([R, R]);
    expect(redactValue({ token: 1 }, rules('[*].token'))).toEqual({ token: 1 });
  });

  it('**.name matches at any depth, including inside arrays', () => {
    const value = { x_internal_token: 1, a: [{ b: { 'X-Internal-Token': 2 } }], c: 'x-internal-token' };
    expect(redactValue(value, rules('**.x-internal-token'))).toEqual({
      x_internal_token: R,
      a: [{ b: { 'X-Internal-Token': R } }],
      c: 'x-internal-token',
    });
  });

  it('a path rule does not match below its own depth', () => {
    expect(redactValue({ a: { customer: { ssn: 1 } } }, rules('customer.ssn'))).toEqual({ a: { customer: { ssn: 1 } } });
  });

  it('built-ins apply with or without operator rules', () => {
    expect(redactValue({ password: 'p', ssn: 's' }, rules('ssn'))).toEqual({ password: R, ssn: R });
  });
});

describe('redactValue: header shapes (5.6)', () => {
  it('[name, value]: replaces the value after a secret name', () => {
    expect(redactValue([['Authorization', 'Bearer x'], ['Accept', 'application/json']])).toEqual([
      ['Authorization', R],
      ['Accept', 'application/json'],
    ]);
    expect(redactValue(['set-cookie', ['a=1', 'b=2']])).toEqual(['set-cookie', R]);
    expect(redactValue(['colour', 'red'])).toEqual(['colour', 'red']);
  });

  it('keeps a value that is itself a known header name, and plain lists of names', () => {
    expect(redactValue(['Authorization', 'Content-Type'])).toEqual(['Authorization', 'Content-Type']);
    expect(redactValue(['cookie', 'SET-COOKIE'])).toEqual(['cookie', 'SET-COOKIE']);
    expect(redactValue(['Authorization', 'Content-Type', 'Accept'])).toEqual(['Authorization', 'Content-Type', 'Accept']);
    expect(redactValue(['Authorization', 'Content-Type', 'Accept', 'X-Api-Key'])).toEqual([
      'Authorization',
      'Content-Type',
      'Accept',
      'X-Api-Key',
    ]);
  });

  it('rawHeaders (HTTP/1): replaces each value after a secret name', () => {
    const raw = ['Host', 'h', 'Authorization', 'Bearer x', 'Content-Type', 'application/json', 'X-Api-Key', 'k'];
    expect(redactValue(raw)).toEqual(['Host', 'h', 'Authorization', R, 'Content-Type', 'application/json', 'X-Api-Key', R]);
  });

  it('rawHeaders (HTTP/2): pseudo-header names are accepted', () => {
    const raw = [':method', 'POST', ':authority', 'a', 'authorization', 'Bearer x', 'cookie', 's=1'];
    expect(redactValue(raw)).toEqual([':method', 'POST', ':authority', 'a', 'authorization', R, 'cookie', R]);
  });

  it('rawHeaders needs an even list of strings, token names and one known header name', () => {
    const odd = ['Host', 'h', 'Authorization', 'x', 'Accept'];
    expect(redactValue(odd)).toEqual(odd);
    const noKnownName = ['X-One', '1', 'password', 'p'];
    expect(redactValue(noKnownName)).toEqual(noKnownName);
    const notToken = ['Host', 'h', 'bad name', 'v', 'authorization', 'x'];
    expect(redactValue(notToken)).toEqual(notToken);
    const notStrings = ['Host', 'h', 'authorization', 1];
    expect(redactValue(notStrings)).toEqual(notStrings);
    expect(redactValue([])).toEqual([]);
  });

  it('{name, value}: replaces value when name is secret; other keys kept', () => {
    expect(redactValue({ name: 'Authorization', value: 'Bearer x', comment: 'c' })).toEqual({
      name: 'Authorization',
      value: R,
      comment: 'c',
    });
    expect(redactValue({ name: 'colour', value: 'red' })).toEqual({ name: 'colour', value: 'red' });
    const headerNameValue = { name: 'authorization', value: 'Content-Type' };
    expect(redactValue(headerNameValue)).toEqual(headerNameValue);
    expect(redactValue({ name: 'password', value: { deep: 1 } })).toEqual({ name: 'password', value: R });
  });

  it('{key, value}: used when name is not a string', () => {
    expect(redactValue({ key: 'cookie', value: 's=1' })).toEqual({ key: 'cookie', value: R });
    expect(redactValue({ name: 3, key: 'cookie', value: 's=1' })).toEqual({ name: 3, key: 'cookie', value: R });
    const nameWins = { name: 'colour', key: 'cookie', value: 's=1' };
    expect(redactValue(nameWins)).toEqual(nameWins);
    expect(redactValue({ key: 'cookie' })).toEqual({ key: 'cookie' });
  });

  it('operator **.name rules count as secret names in shapes; path rules do not', () => {
    expect(redactValue(['x-internal-token', 'v'], rules('**.x-internal-token'))).toEqual(['x-internal-token', R]);
    expect(redactValue({ name: 'ssn', value: '1' }, rules('ssn'))).toEqual({ name: 'ssn', value: '1' });
  });
});

describe('header lines in strings (5.7)', () => {
  it('masks secret lines of a CRLF block, keeping the name and blanks', () => {
    const text = 'Host: api.example.test\r\nAuthorization: Bearer x\r\nCookie:\ta=1\r\nAccept: */*';
    expect(maskHeaderLines(text)).toBe(
      'Host: api.example.test\r\nAuthorization: [REDACTED]\r\nCookie:\t[REDACTED]\r\nAccept: */*',
    );
  });

  it('keeps LF-only text and a lone line as sent', () => {
    expect(maskHeaderLines('Host: h\nAuthorization: Bearer x')).toBe('Host: h\nAuthorization: Bearer x');
    expect(maskHeaderLines('Authorization: Bearer x')).toBe('Authorization: Bearer x');
  });

  it('reads lines up to the first empty line after the first', () => {
    const request = 'POST / HTTP/1.1\r\nAuthorization: a\r\n\r\npassword: body stays\r\n';
    expect(maskHeaderLines(request)).toBe('POST / HTTP/1.1\r\nAuthorization: [REDACTED]\r\n\r\npassword: body stays\r\n');
    expect(maskHeaderLines('\r\nAuthorization: a\r\n')).toBe('\r\nAuthorization: [REDACTED]\r\n');
  });

  it('needs a token name and a non-empty value', () => {
    expect(maskHeaderLines('Authorization:\r\nAuthorization:   \r\n x-api-key: k\r\n')).toBe(
      'Authorization:\r\nAuthorization:   \r\n x-api-key: k\r\n',
    );
  });

  it('a string ending in the truncation marker is a block, and the marker goes with the value', () => {
    const truncated = `x-internal-token: ${'v'.repeat(20)}[TRUNCATED: 69500 characters removed]`;
    expect(maskHeaderLines(truncated, rules('**.x-internal-token'))).toBe('x-internal-token: [REDACTED]');
    expect(maskHeaderLines(truncated)).toBe(truncated);
    const kept = 'x-request-id: abc[TRUNCATED: 10 characters removed]';
    expect(maskHeaderLines(kept)).toBe(kept);
    expect(maskHeaderLines('Authorization: x[TRUNCATED: 5 characters removed]')).toBe('Authorization: [REDACTED]');
  });

  it('recognizes only a well-formed truncation marker at the very end', () => {
    expect(endsWithTruncationMarker('a[TRUNCATED: 12 characters removed]')).toBe(true);
    expect(endsWithTruncationMarker('a[TRUNCATED: x characters removed]')).toBe(false);
    expect(endsWithTruncationMarker('a[TRUNCATED:  characters removed]')).toBe(false);
    expect(endsWithTruncationMarker('a[TRUNCATED: 1 characters removed] ')).toBe(false);
    expect(maskHeaderLines('Authorization: x[TRUNCATED]')).toBe('Authorization: x[TRUNCATED]');
  });

  it('is idempotent', () => {
    const once = maskHeaderLines('Authorization: Bearer x\r\nHost: h');
    expect(maskHeaderLines(once)).toBe(once);
  });

  it('applies to every string under a root, not to keys', () => {
    const block = 'Authorization: a\r\nHost: h';
    expect(redactValue({ a: [block], [block]: 1, b: { c: block } })).toEqual({
      a: ['Authorization: [REDACTED]\r\nHost: h'],
      [block]: 1,
      b: { c: 'Authorization: [REDACTED]\r\nHost: h' },
    });
    expect(redactValue(block)).toBe('Authorization: [REDACTED]\r\nHost: h');
  });
});

describe('createInPlaceRedactor', () => {
  const samples: unknown[] = [
    { password: 'p', keep: 1, nested: { API_KEY: 'k', list: [{ name: 'Authorization', value: 'v' }] } },
    [['Cookie', 'c'], ['Authorization', 'Content-Type']],
    ['Host', 'h', 'Authorization', 'a', 'Content-Type', 'x'],
    { user: { ssn: '1', tags: ['a', 'b'] }, headers: 'Authorization: x\r\nHost: h' },
    'Cookie: c\r\nHost: h',
    42,
  ];
  const sources = ['user.ssn', 'user.tags[*]', '**.token'];

  it.each(samples.map((sample) => [sample]))('gives what the copying redactor gives: %j', (sample) => {
    const expected = createRedactor(rules(...sources))(sample);
    const owned = structuredClone(sample);
    const result = createInPlaceRedactor(rules(...sources))(owned);
    expect(result).toEqual(expected);
    if (typeof sample === 'object') expect(result).toBe(owned);
  });

  it('keeps a __proto__ key an own property', () => {
    const owned: Record<string, unknown> = {};
    setOwn(owned, '__proto__', { password: 'p' });
    const result = createInPlaceRedactor()(owned) as Record<string, unknown>;
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(result, '__proto__')?.value).toEqual({ password: R });
  });
});

describe('createSharingRedactor: the copying redactor\'s result, sharing what it left alone', () => {
  const key = fc.constantFrom('password', 'Authorization', 'name', 'value', 'key', 'headers', 'ssn', 'token', 'a', 'b', '__proto__', 'x-api-key', 'cookie');
  const text = fc.oneof(
    fc.constantFrom('authorization', 'Bearer abc', 'Authorization: Bearer x\r\nHost: h', 'cookie', 'set-cookie', 'x', ''),
    fc.string({ maxLength: 8 }),
  );
  const json = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      text, fc.integer(), fc.boolean(), fc.constant(null),
      fc.array(tie('value'), { maxLength: 4 }),
      fc.array(text, { maxLength: 4 }),
      fc.dictionary(key, tie('value'), { maxKeys: 4 }),
    ),
  })).value;
  const rules = fc.subarray(['ssn', '**.token', 'a.b', 'headers[*]', 'a[*].name', 'not a rule[']);
  const allPlain = (v: unknown): boolean =>
    typeof v !== 'object' || v === null ||
    (Array.isArray(v) ? v.every(allPlain) : Object.getPrototypeOf(v) === Object.prototype && Object.values(v).every(allPlain));

  it('gives an equal result, leaves the input as it was, and returns untouched parts themselves', () => {
    fc.assert(
      fc.property(json, rules, (value, sources) => {
        const { rules: compiled } = compileRules(sources);
        const before = JSON.stringify(value);
        const copied = createRedactor(compiled)(value);
        const shared = createSharingRedactor(compiled)(value);
        expect(shared).toStrictEqual(copied);
        expect(JSON.stringify(value)).toBe(before);
        if (JSON.stringify(copied) === before && typeof value === 'object' && value !== null && allPlain(value)) expect(shared).toBe(value);
      }),
      { numRuns: 3000 },
    );
  });

  it('copies only the containers above a replaced value', () => {
    const input = { keep: { deep: [1, 2] }, user: { password: 'p', name: 'n' } };
    const out = createSharingRedactor()(input) as typeof input;
    expect(out).toEqual({ keep: { deep: [1, 2] }, user: { password: REDACTED, name: 'n' } });
    expect(out).not.toBe(input);
    expect(out.keep).toBe(input.keep);
    expect(out.user).not.toBe(input.user);
    expect(input.user.password).toBe('p');
  });
});
