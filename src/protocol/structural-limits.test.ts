import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_EVENT_PAYLOAD_BYTES, MAX_DEPTH, MAX_STRING_UNITS, MAX_WIDTH } from './limits.ts';
import { findUnstorable } from './storability.ts';
import { checkStructuralLimits, inspectEnvelope, serializedEnvelopeBytes } from './structural-limits.ts';

const check = (envelope: unknown, max = DEFAULT_MAX_EVENT_PAYLOAD_BYTES) => checkStructuralLimits(envelope, max);

/** `leaf` wrapped `depth` times in {"n": …}, like the $nest builder. */
function nest(depth: number, leaf: unknown): unknown {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = { n: value };
  return value;
}

const withInput = (input: unknown) => ({ protocolVersion: '0.1', event: { id: 'evt_1', input } });
const pathOf = (envelope: unknown) => check(envelope)?.details?.[0]?.path;

describe('checkStructuralLimits: depth (envelope 0, event 1, input 2)', () => {
  it('accepts a small envelope and non-objects alike', () => {
    expect(check(withInput({ a: 1 }))).toBeNull();
    expect(check('text')).toBeNull();
    expect(check(null)).toBeNull();
  });

  it('accepts a value 32 levels deep and refuses one at 33', () => {
    // input is at depth 2, so 30 wraps put the leaf at depth 32.
    expect(check(withInput(nest(30, 1)))).toBeNull();
    const refusal = check(withInput(nest(31, 1)));
    expect(refusal?.code).toBe('max_depth_exceeded');
    expect(refusal?.details?.[0]?.path).toBe(`event.input${'.n'.repeat(31)}`);
  });

  it('counts an empty container like any value', () => {
    expect(check(withInput(nest(30, {})))).toBeNull();
    expect(check(withInput(nest(31, {})))?.code).toBe('max_depth_exceeded');
    expect(check(withInput(nest(31, [])))?.code).toBe('max_depth_exceeded');
  });

  it('counts array levels and names indices as numbers', () => {
    let value: unknown = 'leaf';
    for (let i = 0; i < 31; i++) value = [value];
    expect(check(withInput(value))?.details?.[0]?.path).toBe(`event.input${'.0'.repeat(31)}`);
  });
});

describe('checkStructuralLimits: width', () => {
  const keys = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, i]));

  it('accepts 1,000 elements or keys and refuses 1,001', () => {
    expect(check(withInput(new Array(MAX_WIDTH).fill(1)))).toBeNull();
    expect(check(withInput(keys(MAX_WIDTH)))).toBeNull();
    expect(check(withInput(new Array(MAX_WIDTH + 1).fill(1)))).toMatchObject({
      code: 'max_keys_exceeded',
      details: [{ path: 'event.input' }],
    });
    expect(check(withInput(keys(MAX_WIDTH + 1)))?.code).toBe('max_keys_exceeded');
  });

  it('applies to the envelope and the event themselves', () => {
    const envelope = { protocolVersion: '0.1', ...keys(MAX_WIDTH) };
    expect(check(envelope)).toMatchObject({ code: 'max_keys_exceeded', details: [{ path: '' }] });
    expect(pathOf({ event: keys(MAX_WIDTH + 1) })).toBe('event');
  });

  it('counts a parsed __proto__ key as an own key and walks into it', () => {
    const envelope = JSON.parse(`{"event":{"input":{"__proto__":[${new Array(1001).fill(0).join(',')}]}}}`);
    expect(check(envelope)).toMatchObject({
      code: 'max_keys_exceeded',
      details: [{ path: 'event.input.__proto__' }],
    });
  });
});

describe('checkStructuralLimits: string length in UTF-16 units', () => {
  it('accepts 65,536 units and refuses 65,537', () => {
    expect(check(withInput('a'.repeat(MAX_STRING_UNITS)))).toBeNull();
    expect(check(withInput({ note: 'a'.repeat(MAX_STRING_UNITS + 1) }))).toMatchObject({
      code: 'max_string_length_exceeded',
      details: [{ path: 'event.input.note' }],
    });
  });

  it('counts a character outside the BMP as two units', () => {
    expect(check(withInput('𝄞'.repeat(MAX_STRING_UNITS / 2)))).toBeNull();
    expect(check(withInput(`${'𝄞'.repeat(MAX_STRING_UNITS / 2)}a`))?.code).toBe('max_string_length_exceeded');
  });

  it('does not count keys', () => {
    expect(check(withInput({ ['k'.repeat(MAX_STRING_UNITS + 1)]: 1 }))).toBeNull();
  });

  it('checks strings anywhere, unknown fields included', () => {
    expect(pathOf({ protocolVersion: 'x'.repeat(MAX_STRING_UNITS + 1) })).toBe('protocolVersion');
    expect(pathOf({ event: { extra: ['ok', 'x'.repeat(MAX_STRING_UNITS + 1)] } })).toBe('event.extra.1');
  });
});

describe('checkStructuralLimits: order', () => {
  const long = 'x'.repeat(MAX_STRING_UNITS + 1);

  it("checks a container's width before its members", () => {
    expect(check(withInput(new Array(MAX_WIDTH + 1).fill(long)))?.code).toBe('max_keys_exceeded');
  });

  it("checks a container's own depth before its width", () => {
    expect(check(withInput(nest(31, new Array(MAX_WIDTH + 1).fill(0))))?.code).toBe('max_depth_exceeded');
  });

  it('takes the first violation in document order', () => {
    expect(check(withInput({ a: long, b: nest(40, 1) }))?.code).toBe('max_string_length_exceeded');
    expect(check(withInput({ a: nest(40, 1), b: long }))?.code).toBe('max_depth_exceeded');
    expect(check(withInput([nest(40, 1), new Array(MAX_WIDTH + 1).fill(0)]))?.code).toBe('max_depth_exceeded');
    expect(pathOf(withInput({ a: [1, long], b: long }))).toBe('event.input.a.1');
  });

  it('checks structure before size', () => {
    const envelope = withInput({ big: 'y'.repeat(MAX_STRING_UNITS), long });
    expect(check(envelope, 1024)?.code).toBe('max_string_length_exceeded');
  });
});

describe('checkStructuralLimits: serialized size', () => {
  /** An envelope of exactly `bytes` bytes, padded with `char` then ASCII, in strings under the string limit. */
  const sized = (bytes: number, char = 'x') => {
    const input: string[] = new Array<string>(10).fill('');
    const envelope = { event: { input } };
    let left = bytes - serializedEnvelopeBytes(envelope);
    const charBytes = Buffer.byteLength(char);
    for (let i = 0; i < input.length && left > 0; i++) {
      const count = Math.min(Math.floor(left / charBytes), 60_000);
      input[i] = char.repeat(count);
      left -= count * charBytes;
    }
    input[input.length - 1] += 'x'.repeat(left);
    return envelope;
  };

  it('accepts exactly the limit and refuses one byte more', () => {
    expect(serializedEnvelopeBytes(sized(1024))).toBe(1024);
    expect(check(sized(1024), 1024)).toBeNull();
    expect(check(sized(1025), 1024)).toMatchObject({ code: 'payload_too_large' });
  });

  it('counts UTF-8 bytes, not characters', () => {
    const envelope = sized(1028, '𝄞'); // 4 bytes, 2 units, 1 character each
    expect(serializedEnvelopeBytes(envelope)).toBe(1028);
    expect(JSON.stringify(envelope).length).toBeLessThan(1024);
    expect(check(envelope, 1027)?.code).toBe('payload_too_large');
    expect(check(envelope, 1028)).toBeNull();
  });

  it('measures the parsed value as compact JSON: spacing and number spelling do not count', () => {
    const spaced = JSON.parse('{ "event" : { "n" : 1.000000 ,\n "s": "\\u0041" } }');
    expect(serializedEnvelopeBytes(spaced)).toBe(Buffer.byteLength('{"event":{"n":1,"s":"A"}}'));
  });

  it('counts escapes as written: U+0000 is six bytes', () => {
    expect(serializedEnvelopeBytes({ s: '\u0000' })).toBe('{"s":"\\u0000"}'.length);
  });

  it('uses the default limit of 262,144 bytes', () => {
    expect(check(sized(DEFAULT_MAX_EVENT_PAYLOAD_BYTES))).toBeNull();
    expect(check(sized(DEFAULT_MAX_EVENT_PAYLOAD_BYTES + 1))?.code).toBe('payload_too_large');
  });
});

// The walk that adds up the size as it checks the limits, held to the two walks it replaced:
// the limit walk as it was, then JSON.stringify and a byte count. Refusals, messages and sizes
// must be the same for any value, and `storableText` may only say true of storable text.
describe('inspectEnvelope: the same answers as the walk and serialization it replaced', () => {
  function oracleVisit(value: unknown, path: Array<string | number>, depth: number): { code: string; message: string; path: string } | null {
    const refuse = (code: string, message: string) => ({ code, message, path: path.join('.') });
    if (depth > MAX_DEPTH) return refuse('max_depth_exceeded', `A value is nested ${depth} levels below the envelope; the limit is ${MAX_DEPTH}.`);
    if (typeof value === 'string') {
      return value.length > MAX_STRING_UNITS ? refuse('max_string_length_exceeded', `A string is ${value.length} UTF-16 units long; the limit is ${MAX_STRING_UNITS}.`) : null;
    }
    if (Array.isArray(value)) {
      if (value.length > MAX_WIDTH) return refuse('max_keys_exceeded', `An array has ${value.length} elements; the limit is ${MAX_WIDTH}.`);
      for (let i = 0; i < value.length; i++) {
        path.push(i);
        const found = oracleVisit(value[i], path, depth + 1);
        path.pop();
        if (found !== null) return found;
      }
      return null;
    }
    if (value !== null && typeof value === 'object') {
      const keys = Object.keys(value);
      if (keys.length > MAX_WIDTH) return refuse('max_keys_exceeded', `An object has ${keys.length} keys; the limit is ${MAX_WIDTH}.`);
      for (const key of keys) {
        path.push(key);
        const found = oracleVisit((value as Record<string, unknown>)[key], path, depth + 1);
        path.pop();
        if (found !== null) return found;
      }
    }
    return null;
  }
  const oracleBytes = (value: unknown) => {
    const json = JSON.stringify(value);
    return json === undefined ? 0 : Buffer.byteLength(json, 'utf8');
  };
  const oracle = (value: unknown, max: number) => {
    const found = oracleVisit(value, [], 0);
    if (found !== null) return { code: found.code, message: found.message, details: [{ path: found.path, message: found.message }] };
    const bytes = oracleBytes(value);
    return bytes > max ? { code: 'payload_too_large', message: `The envelope is ${bytes} bytes as compact JSON; the limit is ${max}.` } : null;
  };

  // Text with every character class the size and storability rules treat apart.
  const tricky = fc
    .array(fc.constantFrom('a', ' ', '"', '\\', '/', '\n', '\b', '\t', '\f', '\r', '\u0001', '\u001f', '\u007f', '\u0080', 'é', '\u07ff', '\u0800', '€', '\uffff',
      '\u0000', '\ud800', '\udbff', '\udc00', '\udfff', '\ud83d\ude00', '\u2028'), { maxLength: 12 })
    .map((parts) => parts.join(''));
  const text = fc.oneof(tricky, fc.string({ unit: 'binary', maxLength: 20 }), fc.string({ maxLength: 20 }));
  const json = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      text, fc.double(), fc.integer(), fc.boolean(), fc.constant(null),
      fc.array(tie('value'), { maxLength: 5 }),
      fc.dictionary(fc.oneof(text, fc.constant('__proto__')), tie('value'), { maxKeys: 5 }),
    ),
  })).value;

  it('agrees on refusals and sizes for JSON values, at and just under their size', () => {
    fc.assert(
      fc.property(json, (value) => {
        const bytes = oracleBytes(value);
        for (const max of [bytes, bytes - 1, DEFAULT_MAX_EVENT_PAYLOAD_BYTES]) {
          expect(inspectEnvelope(value, max).refusal).toEqual(oracle(value, max));
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('says the text is storable exactly when no string or key holds NUL or an unpaired surrogate', () => {
    fc.assert(
      fc.property(json, (value) => {
        const inspection = inspectEnvelope(value, Number.MAX_SAFE_INTEGER);
        if (inspection.refusal === null) expect(inspection.storableText).toBe(findUnstorable(value) === null);
      }),
      { numRuns: 2000 },
    );
  });

  it('agrees on anything an in-process caller may pass, and never calls it storable unless it is', () => {
    const deepNest = (depth: number): unknown => (depth === 0 ? 'x' : [deepNest(depth - 1)]);
    const odd = [undefined, -0, NaN, Infinity, [1, undefined, () => 1], { a: undefined, b: 1 }, Object.create(null), new Date(0),
      { toJSON: () => 'x' }, new Map([[1, 2]]), [, 1], deepNest(40), { n: Symbol('s') }, Object.assign(Object.create(null), { '\u0000': 1 })];
    for (const value of [...odd, ...fc.sample(fc.anything({ withNullPrototype: true, withSparseArray: true, withBoxedValues: true }), 500)]) {
      let expected: unknown;
      try {
        expected = oracle(value, 100);
      } catch (error) {
        expect(() => inspectEnvelope(value, 100)).toThrow((error as Error).constructor as ErrorConstructor);
        continue;
      }
      const inspection = inspectEnvelope(value, 100);
      expect(inspection.refusal).toEqual(expected);
      if (inspection.storableText) expect(findUnstorable(value)).toBeNull();
    }
  });
});
