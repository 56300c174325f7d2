import { describe, expect, it } from 'vitest';
import { validateEnvelope } from './envelope.ts';
import type { EnvelopeResult, ValidEvent } from './envelope.ts';

// Open objects (aliases, displayableAliases, metadata) and `__proto__` handling (2.2, 2.5).

type Obj = Record<string, unknown>;

const minimalEvent = (): Obj => ({
  id: 'evt_1',
  journeyId: 'jrn_1',
  environment: 'production',
  service: 'customer-integration',
  entity: { type: 'customer', id: '0018Z00002ABC' },
  operation: 'received',
  name: 'receive-salesforce-webhook',
  timestamp: '2026-08-06T18:31:02.000Z',
});

const envelopeWith = (patch: Obj = {}): Obj => ({ protocolVersion: '0.1', event: { ...minimalEvent(), ...patch } });

function accepted(envelope: unknown): ValidEvent {
  const result = validateEnvelope(envelope);
  if (!result.ok) throw new Error(`expected acceptance, got ${JSON.stringify(result)}`);
  return result.event;
}

const paths = (result: EnvelopeResult) => (result.ok ? [] : result.details.map((d) => d.path));
const refusedAt = (patch: Obj) => paths(validateEnvelope(envelopeWith(patch)));
/** Parse JSON text, as the HTTP layer does: `__proto__` becomes an own key. */
const parsed = (eventJson: string) => JSON.parse(`{"protocolVersion":"0.1","event":${eventJson}}`) as unknown;
const parsedWith = (extra: string) => parsed(JSON.stringify(minimalEvent()).replace(/}$/, `,${extra}}`));

describe('validateEnvelope: __proto__ (2.5)', () => {
  const protoEvent = parsed(`{
    "id":"evt_1","journeyId":"jrn_1","environment":"production","service":"s",
    "entity":{"type":"customer","id":"c1","__proto__":{"polluted":true}},
    "operation":"received","name":"n","timestamp":"2026-08-06T18:31:02.000Z",
    "__proto__":{"id":"evt_from_prototype","polluted":true},
    "aliases":{"__proto__":"alias-under-proto","salesforceAccountId":"0018Z00002ABC"},
    "metadata":{"__proto__":"metadata-under-proto","attempt":"1"},
    "input":{"__proto__":"input-under-proto","deep":[{"__proto__":{"__proto__":1}}]}
  }`);

  it('keeps __proto__ as an own key of aliases, metadata and payloads at any depth', () => {
    const event = accepted(protoEvent);
    for (const open of [event.aliases, event.metadata, event.input] as Obj[]) {
      expect(Object.hasOwn(open, '__proto__')).toBe(true);
      expect(Object.getPrototypeOf(open)).toBe(Object.prototype);
    }
    expect(Object.keys(event.aliases as Obj)).toEqual(['__proto__', 'salesforceAccountId']);
    expect(JSON.stringify(event.aliases)).toBe('{"__proto__":"alias-under-proto","salesforceAccountId":"0018Z00002ABC"}');
    expect(JSON.stringify(event.metadata)).toBe('{"__proto__":"metadata-under-proto","attempt":"1"}');
    expect(JSON.stringify(event.input)).toBe('{"__proto__":"input-under-proto","deep":[{"__proto__":{"__proto__":1}}]}');
    const deep = ((event.input as Obj).deep as Obj[])[0] as Obj;
    expect(Object.getPrototypeOf(deep)).toBe(Object.prototype);
    expect(Object.hasOwn(deep.__proto__ as Obj, '__proto__')).toBe(true);
  });

  it('drops __proto__ from closed objects like any unknown field, without applying it', () => {
    const event = accepted(protoEvent);
    expect(event.id).toBe('evt_1');
    expect(Object.hasOwn(event, '__proto__')).toBe(false);
    expect(Object.hasOwn(event.entity, '__proto__')).toBe(false);
    expect((event as unknown as Obj).polluted).toBeUndefined();
    expect(({} as Obj).polluted).toBeUndefined();
  });

  it('refuses a bad __proto__ alias at event.aliases.__proto__', () => {
    for (const value of ['"x"', '"' + 'x'.repeat(513) + '"', '{"a":1}', 'null', '7']) {
      const envelope = parsedWith(`"aliases":{"__proto__":${value}}`);
      expect(paths(validateEnvelope(envelope)), value).toEqual(value === '"x"' ? [] : ['event.aliases.__proto__']);
    }
  });
});

describe('validateEnvelope: aliases, displayableAliases, metadata', () => {
  it('requires string alias values of 0–512 code points', () => {
    expect(refusedAt({ aliases: { a: '', b: 'v'.repeat(512) } })).toEqual([]);
    expect(refusedAt({ aliases: { a: 'v'.repeat(513) } })).toEqual(['event.aliases.a']);
    expect(refusedAt({ aliases: { a: 1, b: 'ok', c: null, d: ['x'] } })).toEqual([
      'event.aliases.a', 'event.aliases.c', 'event.aliases.d',
    ]);
  });

  it('limits alias types to 128 code points, the empty type allowed', () => {
    expect(refusedAt({ aliases: { ['t'.repeat(128)]: 'v', '': 'v' } })).toEqual([]);
    expect(refusedAt({ aliases: { ['t'.repeat(129)]: 'v' } })).toEqual([`event.aliases.${'t'.repeat(129)}`]);
  });

  it('requires aliases to be an object', () => {
    for (const aliases of [['a'], 'a', 1]) expect(refusedAt({ aliases })).toEqual(['event.aliases']);
  });

  it('limits displayableAliases to 1,000 items of 0–128 code points, naming the index', () => {
    expect(refusedAt({ displayableAliases: ['a', 'b', 'c', 'notOneOfThisEventsAliases'] })).toEqual([]);
    expect(refusedAt({ displayableAliases: ['a', 'b', 'c', 4] })).toEqual(['event.displayableAliases.3']);
    expect(refusedAt({ displayableAliases: ['', 'x'.repeat(129)] })).toEqual(['event.displayableAliases.1']);
    expect(refusedAt({ displayableAliases: new Array(1000).fill('t') })).toEqual([]);
    expect(refusedAt({ displayableAliases: new Array(1001).fill('t') })).toEqual(['event.displayableAliases']);
    expect(refusedAt({ displayableAliases: 'email' })).toEqual(['event.displayableAliases']);
  });

  it('limits metadata keys to 128 code points and keeps any JSON value', () => {
    const metadata = { attempt: 2, ok: true, list: [1, 'a'], none: null, ['k'.repeat(128)]: {} };
    expect(accepted(envelopeWith({ metadata })).metadata).toEqual(metadata);
    expect(refusedAt({ metadata: { ['k'.repeat(129)]: 1 } })).toEqual([`event.metadata.${'k'.repeat(129)}`]);
    expect(refusedAt({ metadata: [1] })).toEqual(['event.metadata']);
  });
});
