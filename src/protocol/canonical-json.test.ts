import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalEventJson, canonicalJson } from './canonical-json.ts';
import { validateEnvelope } from './envelope.ts';
import type { ValidEvent } from './envelope.ts';

describe('canonicalJson (section 7)', () => {
  it('is compact JSON with keys sorted recursively and arrays in order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }, 1], c: null } })).toBe(
      '{"a":{"c":null,"d":[3,{"y":2,"z":1},1]},"b":1}',
    );
    expect(canonicalJson([])).toBe('[]');
    expect(canonicalJson({})).toBe('{}');
  });

  it('sorts keys by UTF-16 code unit, not by code point or locale', () => {
    const keys = ['\uffff', '𝄞', 'é', 'b', 'a', 'B', '', 'aa'];
    const text = canonicalJson(Object.fromEntries(keys.map((key) => [key, 0])));
    // U+1D11E is the surrogate pair D834 DD1E, so it sorts before U+FFFF.
    expect(Object.keys(JSON.parse(text) as object)).toEqual(['', 'B', 'a', 'aa', 'b', 'é', '𝄞', '\uffff']);
  });

  it('writes numbers as the parsed double in shortest round-trip form', () => {
    const parsed = JSON.parse('[1.0, 1e2, 0.1, 1E21, -0, 5e-324, 9007199254740993, 1.7976931348623157e308, 100.50]');
    expect(canonicalJson(parsed)).toBe('[1,100,0.1,1e+21,0,5e-324,9007199254740992,1.7976931348623157e+308,100.5]');
  });

  it('escapes strings exactly as JSON.stringify', () => {
    for (const text of ['plain', 'quote " and \\', '\u0000\u001f\n\t', '\u2028\u2029', '𝄞 é', '\ud800', 'x\udc00y', '</script>']) {
      expect(canonicalJson(text)).toBe(JSON.stringify(text));
    }
    expect(canonicalJson('\ud800')).toBe('"\\ud800"');
  });

  it('keeps an own __proto__ key and sorts it like any key', () => {
    const value = JSON.parse('{"b":1,"__proto__":{"x":1},"A":2}') as unknown;
    expect(canonicalJson(value)).toBe('{"A":2,"__proto__":{"x":1},"b":1}');
  });

  it('writes what the earlier part-list writer wrote, for any JSON value', () => {
    // The writer before string concatenation, kept as the oracle: a hash must never change.
    const earlier = (value: unknown): string => {
      const parts: string[] = [];
      const put = (v: unknown): void => {
        if (typeof v === 'string' || typeof v === 'number') parts.push(JSON.stringify(v));
        else if (typeof v === 'boolean') parts.push(v ? 'true' : 'false');
        else if (v === null) parts.push('null');
        else if (Array.isArray(v)) {
          parts.push('[');
          v.forEach((item, i) => {
            if (i > 0) parts.push(',');
            if (item === undefined) parts.push('null');
            else put(item);
          });
          parts.push(']');
        } else {
          const obj = v as Record<string, unknown>;
          parts.push('{');
          let first = true;
          for (const key of Object.keys(obj).sort()) {
            if (obj[key] === undefined) continue;
            if (!first) parts.push(',');
            first = false;
            parts.push(JSON.stringify(key), ':');
            put(obj[key]);
          }
          parts.push('}');
        }
      };
      put(value);
      return parts.join('');
    };
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(canonicalJson(value)).toBe(earlier(value));
      }),
      { numRuns: 1000 },
    );
    // Strings and keys of every kind the quoting tells apart, repeated keys (kept written) included.
    const text = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 10 }),
      fc.array(fc.constantFrom('a', '"', '\\', '/', '\n', '\r', '\u0000', '\u001f', '\u007f', '\u2028', '\ud800', '\udc00', '\ud83d\ude00', 'é'), { maxLength: 6 }).map((p) => p.join('')),
      fc.constantFrom('__proto__', 'k', 'x'.repeat(65), '10', '9', ''),
    );
    const tricky = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        text, fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null),
        fc.array(tie('value'), { maxLength: 4 }),
        fc.dictionary(text, tie('value'), { maxKeys: 5 }),
      ),
    })).value;
    fc.assert(
      fc.property(tricky, (value) => {
        const expected = earlier(value);
        expect(canonicalJson(value)).toBe(expected);
        expect(canonicalJson(value)).toBe(expected); // a second time, with its keys' forms kept
      }),
      { numRuns: 3000 },
    );
  });

  it('round-trips to an equal value', () => {
    const value = JSON.parse('{"z":[1,{"b":"\\u0000","a":[true,false,null]}],"y":-2.5e-7}') as unknown;
    expect(JSON.parse(canonicalJson(value))).toEqual(value);
  });

  it('skips undefined members like JSON.stringify and refuses what JSON cannot hold', () => {
    expect(canonicalJson({ a: undefined, b: 1 })).toBe('{"b":1}');
    expect(canonicalJson([undefined])).toBe('[null]');
    expect(() => canonicalJson(Number.POSITIVE_INFINITY)).toThrow(TypeError);
    expect(() => canonicalJson({ n: Number.NaN })).toThrow(TypeError);
    expect(() => canonicalJson(1n)).toThrow(TypeError);
    expect(() => canonicalJson(() => 1)).toThrow(TypeError);
  });
});

describe('canonicalEventJson', () => {
  const event = (json: string): ValidEvent => {
    const result = validateEnvelope(JSON.parse(json));
    if (!result.ok) throw new Error(result.message);
    return result.event;
  };
  const base =
    '"id":"evt_1","journeyId":"jrn_1","environment":"p","service":"s","entity":{"type":"t","id":"i"},' +
    '"operation":"received","name":"n"';

  it('hashes protocol fields only: no protocolVersion, no derived timestampMs', () => {
    const text = canonicalEventJson(event(`{"protocolVersion":"0.1","event":{${base},"timestamp":"2026-08-06T18:31:02Z"}}`));
    expect(text).toBe(
      '{"entity":{"id":"i","type":"t"},"environment":"p","id":"evt_1","journeyId":"jrn_1","name":"n",' +
        '"operation":"received","service":"s","timestamp":"2026-08-06T18:31:02Z"}',
    );
  });

  it('ignores key order, white space, number spelling and unknown fields', () => {
    const a = event(`{"protocolVersion":"0.1","event":{${base},"timestamp":"2026-08-06T18:31:02Z","input":{"a":1,"b":2}}}`);
    const b = event(
      `{ "extra": 1, "event": { "input": { "b": 2.0, "a": 1e0 }, "timestamp": "2026-08-06T18:31:02Z", "tenant": "x", ${base} }, "protocolVersion": "0.1" }`,
    );
    expect(canonicalEventJson(a)).toBe(canonicalEventJson(b));
  });

  it('treats a null input like an absent one', () => {
    const a = event(`{"protocolVersion":"0.1","event":{${base},"timestamp":"2026-08-06T18:31:02Z"}}`);
    const b = event(`{"protocolVersion":"0.1","event":{${base},"timestamp":"2026-08-06T18:31:02Z","input":null}}`);
    expect(canonicalEventJson(a)).toBe(canonicalEventJson(b));
  });

  it('distinguishes another spelling of the same instant and any changed value', () => {
    const z = event(`{"protocolVersion":"0.1","event":{${base},"timestamp":"2026-08-06T18:31:02Z"}}`);
    const offset = event(`{"protocolVersion":"0.1","event":{${base},"timestamp":"2026-08-06T18:31:02+00:00"}}`);
    expect(z.timestampMs).toBe(offset.timestampMs);
    expect(canonicalEventJson(z)).not.toBe(canonicalEventJson(offset));
    const renamed = event(`{"protocolVersion":"0.1","event":{${base.replace('"n"', '"n2"')},"timestamp":"2026-08-06T18:31:02Z"}}`);
    expect(canonicalEventJson(renamed)).not.toBe(canonicalEventJson(z));
  });
});
