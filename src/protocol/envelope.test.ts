import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OPERATIONS, validateEnvelope } from './envelope.ts';
import type { EnvelopeResult, ValidEvent } from './envelope.ts';
import { MAX_VALIDATION_DETAILS } from './limits.ts';

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

/** The event of an accepted envelope; fails the test otherwise. */
function accepted(envelope: unknown): ValidEvent {
  const result = validateEnvelope(envelope);
  if (!result.ok) throw new Error(`expected acceptance, got ${JSON.stringify(result)}`);
  return result.event;
}

const paths = (result: EnvelopeResult) => (result.ok ? [] : result.details.map((d) => d.path));
const refusedAt = (patch: Obj) => paths(validateEnvelope(envelopeWith(patch)));
/** Parse JSON text, as the HTTP layer does (own `__proto__` keys, 1e400 as Infinity). */
const parsed = (eventJson: string) => JSON.parse(`{"protocolVersion":"0.1","event":${eventJson}}`) as unknown;
/** The minimal event as JSON text with `extra` (`"key":value` text) added at its end. */
const parsedWith = (extra: string) => parsed(JSON.stringify(minimalEvent()).replace(/}$/, `,${extra}}`));

describe('validateEnvelope: envelope and protocolVersion (2.1)', () => {
  it('accepts a minimal event and derives the instant', () => {
    const event = accepted(envelopeWith());
    expect(event).toEqual({ ...minimalEvent(), timestampMs: Date.UTC(2026, 7, 6, 18, 31, 2) });
  });

  it('refuses a non-object envelope as invalid_event at the root', () => {
    for (const value of [null, [], 'text', 1, true, undefined]) {
      expect(validateEnvelope(value)).toMatchObject({ ok: false, code: 'invalid_event', details: [{ path: '' }] });
    }
  });

  it('answers unsupported_protocol_version before reading the event', () => {
    for (const envelope of [
      { protocolVersion: '9.9', event: { anything: true } },
      { protocolVersion: '9.9' },
      { protocolVersion: '0.10', event: 'not an object' },
      { protocolVersion: 'x'.repeat(16), event: minimalEvent() },
    ]) {
      expect(validateEnvelope(envelope)).toMatchObject({
        ok: false,
        code: 'unsupported_protocol_version',
        details: [{ path: 'protocolVersion' }],
      });
    }
  });

  it('refuses a missing, non-string or badly sized protocolVersion as invalid_event', () => {
    for (const protocolVersion of [undefined, null, 0.1, ['0.1'], '', 'x'.repeat(17)]) {
      const result = validateEnvelope({ protocolVersion, event: minimalEvent() });
      expect(result).toMatchObject({ ok: false, code: 'invalid_event', details: [{ path: 'protocolVersion' }] });
      if (!result.ok) expect(result.details).toHaveLength(1);
    }
  });

  it('requires event to be an object', () => {
    for (const event of [undefined, null, [], 'evt', 3]) {
      expect(paths(validateEnvelope({ protocolVersion: '0.1', event }))).toEqual(['event']);
    }
  });

  it('drops unknown envelope keys', () => {
    const event = accepted({ ...envelopeWith(), sentAt: 'later', extra: { a: 1 } });
    expect(event).not.toHaveProperty('sentAt');
  });
});

describe('validateEnvelope: event fields (2.2, 2.3)', () => {
  const required = ['id', 'journeyId', 'environment', 'service', 'entity', 'operation', 'name', 'timestamp'];

  it.each(required)('requires %s', (field) => {
    const event = minimalEvent();
    delete event[field];
    expect(paths(validateEnvelope({ protocolVersion: '0.1', event }))).toEqual([`event.${field}`]);
  });

  it.each(['type', 'id'])('requires entity.%s', (field) => {
    const entity: Obj = { type: 'customer', id: 'c1' };
    delete entity[field];
    expect(refusedAt({ entity })).toEqual([`event.entity.${field}`]);
  });

  it('does not take inherited properties for sent fields', () => {
    const event = Object.assign(Object.create({ id: 'evt_inherited' }) as Obj, minimalEvent());
    delete event.id;
    expect(paths(validateEnvelope({ protocolVersion: '0.1', event }))).toEqual(['event.id']);
  });

  // [field path under event, min, max] of every length-limited string (code points).
  const strings: [string, number, number][] = [
    ['id', 1, 128], ['journeyId', 1, 128], ['environment', 1, 64], ['service', 1, 128],
    ['name', 1, 256], ['journeyLabel', 1, 200], ['parentEventId', 0, 128], ['traceId', 0, 128],
    ['spanId', 0, 128], ['messageId', 0, 256], ['correlationId', 0, 256],
    ['entity.type', 1, 128], ['entity.id', 1, 512],
    ['error.type', 0, 256], ['error.message', 1, 4096], ['error.code', 0, 256], ['error.stack', 0, 16_384],
    ['runtime.language', 0, 64], ['runtime.version', 0, 64], ['runtime.hostname', 0, 256],
    ['runtime.sdk.name', 1, 128], ['runtime.sdk.version', 1, 64], ['runtime.sdk.commit', 1, 128],
    ['deployment.gitCommit', 0, 128], ['deployment.version', 0, 128], ['deployment.image', 0, 512],
  ];

  /** An envelope whose field at `path` (under event) holds `value`, parents filled in validly. */
  function envelopeSetting(path: string, value: unknown): Obj {
    const event = minimalEvent();
    const parents: Obj = {
      entity: { type: 'customer', id: 'c1' },
      error: { message: 'boom' },
      runtime: {},
      'runtime.sdk': { name: 'jtrace-node', version: '0.1.0' },
      deployment: {},
    };
    const segments = path.split('.');
    let target = event;
    segments.slice(0, -1).forEach((segment, i) => {
      const parentPath = segments.slice(0, i + 1).join('.');
      target[segment] = { ...(parents[parentPath] as Obj), ...(target[segment] as Obj | undefined) };
      target = target[segment] as Obj;
    });
    target[segments[segments.length - 1] as string] = value;
    return { protocolVersion: '0.1', event };
  }

  it.each(strings)('limits %s to %i–%i code points', (path, min, max) => {
    const verdict = (value: unknown) => paths(validateEnvelope(envelopeSetting(path, value)));
    expect(verdict('a'.repeat(max))).toEqual([]);
    expect(verdict('a'.repeat(max + 1))).toEqual([`event.${path}`]);
    // Code points, not UTF-16 units: max characters outside the BMP fit.
    expect(verdict('𝄞'.repeat(max))).toEqual([]);
    expect(verdict('𝄞'.repeat(max + 1))).toEqual([`event.${path}`]);
    expect(verdict('a'.repeat(min))).toEqual([]);
    if (min > 0) expect(verdict('')).toEqual([`event.${path}`]);
    expect(verdict(42)).toEqual([`event.${path}`]);
  });

  it('accepts a label of 200 × U+1D11E (400 UTF-16 units)', () => {
    expect(accepted(envelopeWith({ journeyLabel: '𝄞'.repeat(200) })).journeyLabel).toHaveLength(400);
  });

  it('counts a lone surrogate as one code point', () => {
    expect(refusedAt({ environment: '\ud800'.repeat(64) })).toEqual([]);
    expect(refusedAt({ environment: '\ud800'.repeat(65) })).toEqual(['event.environment']);
  });

  it('refuses an empty journeyLabel and an empty runtime.sdk.name at their paths', () => {
    expect(refusedAt({ journeyLabel: '' })).toEqual(['event.journeyLabel']);
    expect(refusedAt({ runtime: { language: 'node', sdk: { name: '', version: '0.1.0' } } })).toEqual([
      'event.runtime.sdk.name',
    ]);
  });

  it('accepts every operation of 3.1, exactly spelled', () => {
    expect(OPERATIONS).toHaveLength(11);
    for (const operation of OPERATIONS) expect(refusedAt({ operation })).toEqual([]);
    for (const operation of ['exploded', 'Received', 'received ', '', 7]) {
      expect(refusedAt({ operation })).toEqual(['event.operation']);
    }
  });

  it('refuses a bad timestamp at event.timestamp', () => {
    for (const timestamp of ['2026-08-06T18:31:02', '9999-12-31T23:30:00-01:00', 1786041062000, '']) {
      expect(refusedAt({ timestamp })).toEqual(['event.timestamp']);
    }
    const event = accepted(envelopeWith({ timestamp: '2026-08-06T18:31:02.1239999+02:00' }));
    expect(event.timestamp).toBe('2026-08-06T18:31:02.1239999+02:00');
    expect(event.timestampMs).toBe(Date.UTC(2026, 7, 6, 16, 31, 2, 123));
  });

  it('limits durationMs to an int4 integer 0–2,147,483,647', () => {
    expect(accepted(envelopeWith({ durationMs: 0 })).durationMs).toBe(0);
    expect(accepted(envelopeWith({ durationMs: 2_147_483_647 })).durationMs).toBe(2_147_483_647);
    expect(accepted(parsedWith('"durationMs":12.0')).durationMs).toBe(12);
    for (const durationMs of [2_147_483_648, -1, 1.5, '5', Number.POSITIVE_INFINITY, Number.NaN]) {
      expect(refusedAt({ durationMs })).toEqual(['event.durationMs']);
    }
  });

  it('limits runtime.processId to a safe integer ≥ 0', () => {
    expect(refusedAt({ runtime: { processId: 0 } })).toEqual([]);
    expect(refusedAt({ runtime: { processId: Number.MAX_SAFE_INTEGER } })).toEqual([]);
    for (const processId of [2 ** 53, -1, 1.5, '12']) {
      expect(refusedAt({ runtime: { processId } })).toEqual(['event.runtime.processId']);
    }
  });

  it('requires error.message, runtime.sdk.name and runtime.sdk.version', () => {
    expect(refusedAt({ error: { type: 'HttpError' } })).toEqual(['event.error.message']);
    expect(refusedAt({ runtime: { sdk: {} } })).toEqual(['event.runtime.sdk.name', 'event.runtime.sdk.version']);
  });

  it('requires nested closed objects to be objects', () => {
    for (const field of ['entity', 'error', 'runtime', 'deployment']) {
      expect(refusedAt({ [field]: ['x'] })).toEqual([`event.${field}`]);
      expect(refusedAt({ [field]: 'x' })).toEqual([`event.${field}`]);
    }
    expect(refusedAt({ runtime: { sdk: 'jtrace' } })).toEqual(['event.runtime.sdk']);
  });

  it('keeps every optional field when sent', () => {
    const full: Obj = {
      aliases: { email: 'someone@example.com' },
      displayableAliases: ['email'],
      journeyLabel: 'Order 1001',
      durationMs: 12,
      parentEventId: '',
      traceId: 't',
      spanId: 's',
      messageId: 'm',
      correlationId: 'c',
      input: { a: [1, 'two', null, true, { b: 2.5 }] },
      output: 'done',
      error: { type: 'HttpError', message: 'Unprocessable Entity', code: '422', stack: 'at x' },
      runtime: { language: 'node', version: '20', hostname: 'h', processId: 7, sdk: { name: 'n', version: 'v', commit: 'c' } },
      deployment: { gitCommit: 'abc', version: '1.2.3', image: 'img' },
      metadata: { attempt: '2', httpStatus: 422, nested: { deep: [1] } },
    };
    expect(accepted(envelopeWith(full))).toEqual({ ...minimalEvent(), ...full, timestampMs: expect.any(Number) });
  });
});

describe('validateEnvelope: unknown fields, null, numbers (2.5)', () => {
  it('drops unknown fields of every closed object without error', () => {
    const event = accepted(
      envelopeWith({
        tenantRegion: 'eu-west-1',
        entity: { type: 'customer', id: 'c1', tier: 'gold' },
        error: { message: 'boom', retryable: true },
        runtime: { language: 'node', arch: 'x64', sdk: { name: 'n', version: 'v', build: 3 } },
        deployment: { version: '1', region: 'eu' },
      }),
    );
    expect(event).not.toHaveProperty('tenantRegion');
    expect(event.entity).toEqual({ type: 'customer', id: 'c1' });
    expect(event.error).toEqual({ message: 'boom' });
    expect(event.runtime).toEqual({ language: 'node', sdk: { name: 'n', version: 'v' } });
    expect(event.deployment).toEqual({ version: '1' });
  });

  it('leaves optional fields absent, never undefined or null', () => {
    const event = accepted(envelopeWith());
    expect(Object.keys(event).sort()).toEqual([...Object.keys(minimalEvent()), 'timestampMs'].sort());
  });

  it('refuses null for an optional field', () => {
    for (const field of ['aliases', 'displayableAliases', 'journeyLabel', 'durationMs', 'traceId', 'error', 'runtime', 'deployment', 'metadata']) {
      expect(refusedAt({ [field]: null })).toEqual([`event.${field}`]);
    }
    expect(refusedAt({ error: { message: 'm', code: null } })).toEqual(['event.error.code']);
    expect(refusedAt({ runtime: { sdk: null } })).toEqual(['event.runtime.sdk']);
  });

  it('refuses null for a required field', () => {
    expect(refusedAt({ id: null, entity: null })).toEqual(['event.id', 'event.entity']);
  });

  it('reads input or output null as absent', () => {
    const event = accepted(envelopeWith({ input: null, output: null }));
    expect(event).not.toHaveProperty('input');
    expect(event).not.toHaveProperty('output');
    expect(accepted(envelopeWith({ input: { a: null } })).input).toEqual({ a: null });
  });

  it('accepts any JSON as input and output', () => {
    for (const value of ['text', 0, -0.5, false, [], {}, [[{}]], 'x'.repeat(10)]) {
      expect(accepted(envelopeWith({ input: value, output: value })).input).toEqual(value);
    }
  });

  it('keeps an integer beyond 2^53 as the parsed double', () => {
    const event = accepted(parsedWith('"input":{"n":9007199254740993}'));
    expect(event.input).toEqual({ n: 9_007_199_254_740_992 });
  });

  it('refuses a number too large for a double anywhere, naming its path', () => {
    const event = parsedWith;
    expect(paths(validateEnvelope(event('"input":{"a":[1,{"b":1e400}]}')))).toEqual(['event.input.a.1.b']);
    expect(paths(validateEnvelope(event('"output":-1e400')))).toEqual(['event.output']);
    expect(paths(validateEnvelope(event('"metadata":{"x":1e999}')))).toEqual(['event.metadata.x']);
    expect(paths(validateEnvelope(event('"unknownField":{"x":[1e400]}')))).toEqual(['event.unknownField.x.0']);
    expect(paths(validateEnvelope(event('"durationMs":1e400')))).toEqual(['event.durationMs']);
    expect(refusedAt({ entity: { type: 't', id: 'i', score: Number.NEGATIVE_INFINITY } })).toEqual(['event.entity.score']);
    expect(paths(validateEnvelope({ ...envelopeWith(), extra: Number.POSITIVE_INFINITY }))).toEqual(['extra']);
  });

  it('refuses non-JSON values handed in by an in-process caller', () => {
    expect(refusedAt({ input: { a: undefined } })).toEqual(['event.input.a']);
    expect(refusedAt({ input: [new Date(0)] })).toEqual(['event.input.0']);
    expect(refusedAt({ metadata: { n: 1n } })).toEqual(['event.metadata.n']);
  });

  it('copies payloads: the validated event does not share them with the envelope', () => {
    const input = { a: { b: [1] } };
    const event = accepted(envelopeWith({ input }));
    input.a.b.push(2);
    expect(event.input).toEqual({ a: { b: [1] } });
  });

  it('shares plain payloads only when asked to, with the same answer as the copy for any value', () => {
    const input = { a: { b: [1] } };
    const shared = validateEnvelope(envelopeWith({ input, metadata: { m: input } }), { sharePayloads: true });
    expect(shared.ok && shared.event.input).toBe(input);
    expect(shared.ok && shared.event.metadata?.m).toBe(input);
    const payload = fc.anything({ withNullPrototype: true, withSparseArray: true, withBoxedValues: true, withBigInt: true, withDate: true });
    fc.assert(
      fc.property(payload, payload, payload, (a, b, c) => {
        const envelope = envelopeWith({ input: a, output: b, metadata: { m: c, n: Number.POSITIVE_INFINITY } });
        expect(validateEnvelope(envelope, { sharePayloads: true })).toEqual(validateEnvelope(envelope));
        const plain = envelopeWith({ input: a, output: b });
        expect(validateEnvelope(plain, { sharePayloads: true })).toEqual(validateEnvelope(plain));
      }),
      { numRuns: 1500 },
    );
  });
});

describe('validateEnvelope: details (2.6)', () => {
  it('gives one detail per problem, in field order', () => {
    const event = { ...minimalEvent(), id: '', operation: 'nope', journeyLabel: '', entity: { type: 'x' } };
    delete (event as Obj).name;
    const result = validateEnvelope({ protocolVersion: '0.1', event });
    expect(paths(result)).toEqual(['event.id', 'event.entity.id', 'event.operation', 'event.name', 'event.journeyLabel']);
    expect(result.ok ? '' : result.message).toMatch(/event\.id.*4 more problems/);
    if (!result.ok) for (const detail of result.details) expect(detail.message).not.toBe('');
  });

  it(`reports at most ${MAX_VALIDATION_DETAILS} details and counts the rest in the message`, () => {
    const input = new Array(150).fill(Number.POSITIVE_INFINITY);
    const result = validateEnvelope(envelopeWith({ input }));
    expect(paths(result)).toHaveLength(MAX_VALIDATION_DETAILS);
    expect(result.ok ? '' : result.message).toContain('149 more problems');
  });
});
