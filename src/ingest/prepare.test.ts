import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { contentHash } from '../crypto/content-hash.ts';
import { createKeyring } from '../crypto/keyring.ts';
import { canonicalEventJson } from '../protocol/canonical-json.ts';
import { validateEnvelope } from '../protocol/envelope.ts';
import { computePayloadDiff } from '../protocol/payload-diff.ts';
import { findUnstorable, findUnstorableEventValue } from '../protocol/storability.ts';
import { checkStructuralLimits } from '../protocol/structural-limits.ts';
import { applyCapture, CAPTURE_MODES, type CapturableEvent } from './capture/capture.ts';
import { prepareEvent, readableEventId, unstorableRefusal, type Preparation, type PrepareContext, type Refusal } from './prepare.ts';

const keyring = createKeyring({ current: 'prepare-test-key-0123456789abcdef' });

/**
 * prepareEvent as it was before the storability walks were skipped for storable text: every
 * id, value and stored value walked for NUL and unpaired surrogates. Kept as the oracle.
 */
function oraclePrepare(envelope: unknown, ctx: PrepareContext): Preparation {
  const refuse = (code: Refusal['code'], message: string, details?: Array<{ path: string; message: string }>): Preparation => ({
    ok: false,
    eventId: readableEventId(envelope),
    refusal: { code, message, ...(details && details.length > 0 ? { details } : {}) },
  });
  const structural = checkStructuralLimits(envelope, ctx.maxEventPayloadBytes);
  if (structural !== null) return refuse(structural.code, structural.message, structural.details);
  const validated = validateEnvelope(envelope);
  if (!validated.ok) return refuse(validated.code, validated.message, validated.details);
  const event = validated.event;
  if (event.environment !== ctx.environmentName) {
    return refuse('unauthorized_environment', 'The event names an environment this key cannot write to.', [
      { path: 'event.environment', message: 'not the environment of the API key' },
    ]);
  }
  for (const [path, value] of [['event.id', event.id], ['event.journeyId', event.journeyId]] as const) {
    if (findUnstorable(value, path) !== null) return { ok: false, eventId: readableEventId(envelope), refusal: unstorableRefusal(path) };
  }
  const canonical = canonicalEventJson(event);
  const capture = applyCapture(event as unknown as CapturableEvent, ctx.capture, ctx.allowFullPayloadCapture);
  const payloadDiff = capture.hasInput && capture.hasOutput ? computePayloadDiff(capture.inputPayload, capture.outputPayload) : null;
  return {
    ok: true,
    prepared: {
      event, hash: contentHash(ctx.keyring, canonical), canonical, capture, payloadDiff,
      unstorablePath: findUnstorableEventValue(event, {
        input: capture.inputPayload, output: capture.outputPayload, error: capture.error,
        runtime: capture.runtimeMetadata, deployment: capture.deploymentMetadata, metadata: capture.customMetadata,
      }),
    },
  };
}

// Text that reaches every rule: NUL, unpaired and paired surrogates, header blocks (CRLF lines
// that redaction cuts), credentials that error masking rewrites, quotes and escapes.
const piece = fc.constantFrom(
  'a', 'order', ' ', '"', '\\', '\n', '\r\n', ':', '=', '\ud83d\ude00', 'é', '€',
  'authorization: Bearer abc', 'password=hunter2', 'postgres://u:p@db/x', 'eyJhbGciOiJI.eyJzdWIi.c2ln', 'sk_live_abcdefghijklmnop',
  'Cookie: a=b', 'x-api-key:', '[TRUNCATED: 3 characters removed]',
);
const unstorable = fc.constantFrom('\u0000', '\ud800', '\udc00', '\udbff\u0000');
const clean = fc.array(piece, { minLength: 1, maxLength: 6 }).map((p) => p.join(''));
// Mostly storable text, so that most events get through validation to the storability rules.
const text = fc.oneof(
  { weight: 40, arbitrary: clean },
  fc.tuple(clean, unstorable, fc.array(piece, { maxLength: 2 })).map(([a, b, c]) => a + b + c.join('')),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 12 }),
);
const key = fc.oneof(text, fc.constantFrom('password', 'token', 'headers', 'value', 'name', '__proto__', 'ssn', 'Authorization'));
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    text, fc.integer(), fc.double({ noNaN: true }), fc.boolean(), fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(key, tie('value'), { maxKeys: 4 }),
  ),
})).value;

const event = fc.record(
  {
    id: fc.oneof(fc.constant('evt_1'), text), journeyId: fc.oneof(fc.constant('jrn_1'), text),
    environment: fc.constantFrom('production', 'production', 'production', 'staging'), service: fc.oneof(fc.constant('checkout'), text),
    entity: fc.record({ type: fc.oneof(fc.constant('order'), text), id: text }), operation: fc.constantFrom('received', 'completed', 'failed'),
    name: fc.oneof(fc.constant('order received'), text), timestamp: fc.constant('2026-08-06T16:31:02.120Z'),
    aliases: fc.dictionary(key, text, { maxKeys: 3 }), displayableAliases: fc.array(key, { maxLength: 2 }),
    journeyLabel: text, traceId: text, spanId: text, input: json, output: json,
    error: fc.record({ message: text, type: text, code: text, stack: text }, { requiredKeys: ['message'] }),
    runtime: fc.record({ language: text, hostname: text }, { requiredKeys: [] }),
    deployment: fc.record({ version: text }, { requiredKeys: [] }),
    metadata: fc.dictionary(key, json, { maxKeys: 3 }), unknownField: json,
  },
  { requiredKeys: ['id', 'journeyId', 'environment', 'service', 'entity', 'operation', 'name', 'timestamp'] },
);
const envelope = fc.oneof({ weight: 6, arbitrary: event.map((e) => ({ protocolVersion: '0.1', event: e })) }, fc.anything());
const context = fc.record({
  captureMode: fc.constantFrom(...CAPTURE_MODES),
  redactionPaths: fc.subarray(['ssn', '**.token', 'customer.name', 'items[*].sku']),
  captureAllowlist: fc.subarray(['orderId', 'customer', 'a']),
  allowFullPayloadCapture: fc.boolean(),
  maxEventPayloadBytes: fc.constantFrom(1_048_576, 1_048_576, 1_048_576, 600),
}).map(({ captureMode, redactionPaths, captureAllowlist, allowFullPayloadCapture, maxEventPayloadBytes }): PrepareContext => ({
  keyring, environmentName: 'production', capture: { captureMode, redactionPaths, captureAllowlist }, allowFullPayloadCapture, maxEventPayloadBytes,
}));

describe('prepareEvent: the same preparation as the walks it replaced', () => {
  it('refuses, hashes, captures and finds unstorable values exactly as before, for any envelope', () => {
    fc.assert(
      fc.property(envelope, context, (value, ctx) => {
        expect(prepareEvent(value, ctx)).toEqual(oraclePrepare(value, ctx));
      }),
      { numRuns: 3000 },
    );
  });

  it('still finds NUL in a stored value and an unpaired surrogate anywhere', () => {
    const ctx: PrepareContext = {
      keyring, environmentName: 'production', allowFullPayloadCapture: false, maxEventPayloadBytes: 1_048_576,
      capture: { captureMode: 'redacted-payload', redactionPaths: [], captureAllowlist: [] },
    };
    const base = { id: 'e', journeyId: 'j', environment: 'production', service: 's', entity: { type: 't', id: 'i' }, operation: 'received', name: 'n', timestamp: '2026-08-06T16:31:02.120Z' };
    const path = (fields: object) => {
      const result = prepareEvent({ protocolVersion: '0.1', event: { ...base, ...fields } }, ctx);
      return result.ok ? result.prepared.unstorablePath : result.refusal.details?.[0]?.path;
    };
    expect(path({})).toBeNull();
    expect(path({ input: { a: ['x', 'y\u0000'] } })).toBe('event.input.a.1');
    expect(path({ input: { password: '\u0000' } })).toBeNull(); // redacted: never stored
    expect(path({ entity: { type: 't', id: 'i\u0000' } })).toBeNull(); // stored encrypted
    expect(path({ entity: { type: 't', id: 'i\ud800' } })).toBe('event.entity.id');
    expect(path({ id: 'e\u0000' })).toBe('event.id');
    expect(path({ error: { message: 'boom\u0000' } })).toBe('event.error.message');
  });
});
