import fc from 'fast-check';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyring } from '../crypto/keyring.ts';
import { hexId, jsonLogs, jsonTraces, toProtobuf, type AttributeValue } from '../otlp/test-payloads.ts';
import { TEST_ENCRYPTION_KEY, bearer, buildTestApp, seedProject } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';

/**
 * Property: a NUL, a lone high or low surrogate or a reversed pair put into any string of an
 * otherwise valid envelope (ids, entity, aliases, names, metadata keys and values, payload keys
 * and values) is answered in the spec's shape, never with a 5xx: on POST /v1/events, on
 * /v1/events/batch (stored and dry run) and through OTLP (JSON and protobuf). An unpaired
 * surrogate is refused everywhere with `unstorable_payload` at its path (event-protocol 2.7
 * step 6, 12.5); NUL is refused where a value is stored in the clear and kept where it is
 * stored encrypted (entity.id, alias values).
 */

const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });
let db: TestDatabase;
let app: FastifyInstance;
let apiKey: string;

beforeAll(async () => {
  db = await createTestDatabase();
  ({ app } = await buildTestApp(db.pool, { keyring, config: { otlpEnabled: true } }));
  apiKey = (await seedProject(db.pool, keyring, 'strings')).apiKey;
});
afterAll(async () => {
  await app.close();
  await db.drop();
});

const PIECES = { nul: '\u0000', 'lone high': '\uD83D', 'lone low': '\uDE00', 'reversed pair': '\uDE00\uD83D' } as const;
type PieceName = keyof typeof PIECES;

type Event = Record<string, unknown>;
interface Slot {
  /** The detail path of the refusal; null when another check may refuse first (any 4xx). */
  path: string | null;
  /** Stored encrypted: NUL is kept (2.7 step 6). */
  encrypted?: boolean;
  put(event: Event, text: string): void;
}

let counter = 0;
function baseEvent(): Event {
  counter += 1;
  return {
    id: `evt_s${counter}_${Date.now()}`,
    journeyId: `jrn_s${counter}`,
    environment: 'production',
    service: 'checkout',
    entity: { type: 'order', id: 'o-1' },
    operation: 'received',
    name: 'order received',
    timestamp: '2026-08-06T16:31:02.120Z',
    aliases: { mail: 'buyer@example.com' },
    displayableAliases: ['mail'],
    journeyLabel: 'an order',
    parentEventId: 'evt_parent',
    traceId: 'trace-1',
    spanId: 'span-1',
    messageId: 'msg-1',
    correlationId: 'corr-1',
    input: { cart: { items: ['book'] } },
    output: { total: 12, note: 'paid' },
    error: { type: 'Timeout', message: 'slow', code: 'E1', stack: 'at x' },
    runtime: { language: 'node', version: '20', hostname: 'h1', sdk: { name: 'sdk', version: '1' } },
    deployment: { gitCommit: 'abc', version: '1.0', image: 'img' },
    metadata: { region: 'eu', tags: ['a'] },
  };
}

const at = (object: unknown, key: string) => (object as Record<string, Record<string, unknown>>)[key]!;
const field = (name: string): Slot => ({ path: `event.${name}`, put: (e, t) => void (e[name] = `${String(e[name])}${t}`) });
const inner = (outer: string, name: string): Slot => ({ path: `event.${outer}.${name}`, put: (e, t) => void (at(e, outer)[name] = `${String(at(e, outer)[name])}${t}`) });

const SLOTS: Record<string, Slot> = {
  'event.id': field('id'),
  'event.journeyId': field('journeyId'),
  'event.service': field('service'),
  'event.entity.type': inner('entity', 'type'),
  'event.entity.id': { ...inner('entity', 'id'), encrypted: true },
  'event.name': field('name'),
  'event.journeyLabel': field('journeyLabel'),
  'event.parentEventId': field('parentEventId'),
  'event.traceId': field('traceId'),
  'event.spanId': field('spanId'),
  'event.messageId': field('messageId'),
  'event.correlationId': field('correlationId'),
  'alias type': { path: null, put: (e, t) => void ((e.aliases = { [`mail${t}`]: 'buyer@example.com' }), (e.displayableAliases = [`mail${t}`])) },
  'alias value': { path: 'event.aliases.mail', encrypted: true, put: (e, t) => void (e.aliases = { mail: `buyer${t}@example.com` }) },
  'displayable alias': { path: null, put: (e, t) => void (e.displayableAliases = [`mail${t}`]) },
  'metadata key': { path: null, put: (e, t) => void (at(e, 'metadata')[`re${t}gion`] = 'eu') },
  'metadata value': { path: 'event.metadata.region', put: (e, t) => void (at(e, 'metadata').region = `eu${t}`) },
  'metadata array item': { path: 'event.metadata.tags.0', put: (e, t) => void (at(e, 'metadata').tags = [`a${t}`]) },
  'input key': { path: null, put: (e, t) => void (at(e, 'input')[`ca${t}rt`] = 1) },
  'input value': { path: 'event.input.cart.items.0', put: (e, t) => void (at(at(e, 'input'), 'cart').items = [`book${t}`]) },
  'output key': { path: null, put: (e, t) => void (at(e, 'output')[`no${t}te`] = 'x') },
  'output value': { path: 'event.output.note', put: (e, t) => void (at(e, 'output').note = `paid${t}`) },
  'error.type': inner('error', 'type'),
  'error.message': inner('error', 'message'),
  'error.code': inner('error', 'code'),
  'error.stack': { path: null, put: (e, t) => void (at(e, 'error').stack = `at x${t}`) },
  'runtime.hostname': inner('runtime', 'hostname'),
  'runtime.sdk.name': { path: 'event.runtime.sdk.name', put: (e, t) => void (at(at(e, 'runtime'), 'sdk').name = `sdk${t}`) },
  'deployment.image': inner('deployment', 'image'),
  'event.environment': { path: null, put: (e, t) => void (e.environment = `production${t}`) },
  'event.timestamp': { path: null, put: (e, t) => void (e.timestamp = `2026-08-06T16:31:02.120Z${t}`) },
};

function expectSpecShape(response: LightMyRequestResponse, what: string): void {
  expect(response.statusCode, `${what} → ${response.statusCode} ${response.body.slice(0, 300)}`).toBeLessThan(500);
  if (response.statusCode < 400) return;
  const body = response.json() as { error?: Record<string, unknown> };
  expect(body.error, what).toMatchObject({ code: expect.any(String), message: expect.any(String), requestId: expect.any(String) });
}

interface Verdict { accepted: boolean; code?: string; path?: string }

/** What the event protocol asks for this slot and piece. */
function expectVerdict(verdict: Verdict, slot: Slot, piece: PieceName, what: string): void {
  if (piece === 'nul' && slot.encrypted) {
    expect(verdict, what).toEqual({ accepted: true });
    return;
  }
  if (piece === 'nul') return; // Refused where stored in the clear; kept where capture drops it.
  expect(verdict.accepted, what).toBe(false);
  if (slot.path !== null) expect(verdict, what).toEqual({ accepted: false, code: 'unstorable_payload', path: slot.path });
}

const UNPAIRED = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Whether any key or string value of the event holds a surrogate that is not half of a pair. */
function hasUnpairedSurrogate(value: unknown): boolean {
  if (typeof value === 'string') return UNPAIRED.test(value);
  if (Array.isArray(value)) return value.some(hasUnpairedSurrogate);
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).some(([key, inner]) => UNPAIRED.test(key) || hasUnpairedSurrogate(inner));
  }
  return false;
}

const headers = () => ({ 'content-type': 'application/json', ...bearer(apiKey) });

async function sendSingle(event: Event, what: string): Promise<Verdict> {
  const response = await app.inject({ method: 'POST', url: '/v1/events', headers: headers(), payload: JSON.stringify({ protocolVersion: '0.1', event }) });
  expectSpecShape(response, what);
  if (response.statusCode < 300) return { accepted: true };
  const error = response.json().error as { code: string; details?: Array<{ path: string }> };
  return { accepted: false, code: error.code, ...(error.details?.[0] ? { path: error.details[0].path } : {}) };
}

async function sendBatch(event: Event, dryRun: boolean, what: string): Promise<Verdict> {
  const response = await app.inject({
    method: 'POST',
    url: `/v1/events/batch${dryRun ? '?dryRun=true' : ''}`,
    headers: headers(),
    payload: JSON.stringify({ events: [{ protocolVersion: '0.1', event }] }),
  });
  expectSpecShape(response, what);
  expect(response.statusCode, what).toBeLessThan(300);
  const result = response.json().data.results[0] as { status: string; error?: { code: string; httpStatus: number; details?: Array<{ path: string }> } };
  if (result.status !== 'rejected') return { accepted: true };
  expect(result.error!.httpStatus, what).toBeGreaterThanOrEqual(400);
  expect(result.error!.httpStatus, what).toBeLessThan(500);
  return { accepted: false, code: result.error!.code, ...(result.error!.details?.[0] ? { path: result.error!.details[0].path } : {}) };
}

describe('a NUL or an unpaired surrogate in any string of an envelope', () => {
  it.each(Object.keys(PIECES) as PieceName[])('%s: every slot, on both ingestion routes, gets the protocol verdict and never a 5xx', async (piece) => {
    for (const [name, slot] of Object.entries(SLOTS)) {
      const what = `${piece} in ${name}`;
      const single = baseEvent();
      slot.put(single, PIECES[piece]);
      expectVerdict(await sendSingle(single, `${what}, single`), slot, piece, `${what}, single`);
      for (const dryRun of [true, false]) {
        const batched = baseEvent();
        slot.put(batched, PIECES[piece]);
        expectVerdict(await sendBatch(batched, dryRun, `${what}, batch`), slot, piece, `${what}, batch${dryRun ? ' dry run' : ''}`);
      }
    }
  });

  it('anywhere inside any slot, alone or with others, on both routes (fast-check)', async () => {
    const pieceName = fc.constantFrom(...(Object.keys(PIECES) as PieceName[]));
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.constantFrom(...Object.keys(SLOTS)), pieceName, fc.string({ maxLength: 3 })), { minLength: 1, maxLength: 3 }),
        fc.boolean(),
        async (puts, dryRun) => {
          const event = baseEvent();
          for (const [name, piece, around] of puts) SLOTS[name]!.put(event, `${around}${PIECES[piece]}${around}`);
          const what = JSON.stringify(puts);
          const single = await sendSingle(structuredClone(event), what);
          const batch = await sendBatch({ ...structuredClone(event), id: `${String(event.id)}b` }, dryRun, what);
          // One verdict whichever route: a surrogate left unpaired anywhere is refused. Pieces put
          // into the same slot may replace each other or meet (a lone high then a lone low is a
          // valid pair), so the oracle reads the event as it is sent.
          expect(batch.accepted, `${what}: the same verdict on both routes`).toBe(single.accepted);
          if (hasUnpairedSurrogate(event)) {
            expect(single.accepted, what).toBe(false);
            expect(batch.accepted, what).toBe(false);
          }
        },
      ),
      {
        numRuns: Number(process.env.FUZZ_RUNS ?? 150),
        // Two halves put into one slot make a valid pair: the event is accepted.
        examples: [[[['error.type', 'lone high', ''], ['error.type', 'lone low', '']], false]],
      },
    );
  });
});

describe('through OTLP', () => {
  const attributes = (text: string, where: string): Record<string, AttributeValue> => {
    const base: Record<string, AttributeValue> = {
      'jtrace.journey.id': 'jrn_otlp',
      'jtrace.entity.type': 'order',
      'jtrace.entity.id': 'o-1',
      'jtrace.operation': 'received',
      'jtrace.aliases': JSON.stringify({ mail: 'buyer@example.com' }),
      'jtrace.metadata': JSON.stringify({ region: 'eu' }),
      'jtrace.input': JSON.stringify({ cart: 1 }),
    };
    if (where === 'journey id') base['jtrace.journey.id'] = `jrn_${text}`;
    if (where === 'entity id') base['jtrace.entity.id'] = `o-${text}`;
    if (where === 'alias value') base['jtrace.aliases'] = JSON.stringify({ mail: `buyer${text}@example.com` });
    if (where === 'alias value (kvlist)') base['jtrace.aliases'] = { mail: `buyer${text}@example.com` };
    if (where === 'metadata key') base['jtrace.metadata'] = JSON.stringify({ [`re${text}gion`]: 'eu' });
    if (where === 'input value') base['jtrace.input'] = { cart: `c${text}` };
    if (where === 'name') base['jtrace.name'] = `step${text}`;
    return base;
  };
  const WHERE = ['journey id', 'entity id', 'alias value', 'alias value (kvlist)', 'metadata key', 'input value', 'name', 'service', 'span name'];

  it('answers 200 with the record refused in partialSuccess (or accepted), never a 5xx, in JSON and protobuf', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...WHERE), fc.constantFrom(...(Object.keys(PIECES) as PieceName[])), fc.constantFrom('traces', 'logs'), fc.boolean(), async (where, piece, signal, protobuf) => {
        const text = PIECES[piece];
        const service = where === 'service' ? `checkout${text}` : 'checkout';
        const attrs = attributes(text, where);
        const request =
          signal === 'traces'
            ? jsonTraces(service, [{ traceId: hexId(16), spanId: hexId(8), name: where === 'span name' ? `span${text}` : 'span', startMs: Date.now(), durationMs: 5, attributes: attrs }])
            : jsonLogs(service, [{ timeMs: Date.now(), body: `b${hexId(8)}`, attributes: attrs }]);
        const payload = protobuf ? Buffer.from(toProtobuf(signal, request)) : JSON.stringify(request);
        const what = `${piece} in ${where}, ${signal}, ${protobuf ? 'protobuf' : 'JSON'}`;
        const response = await app.inject({
          method: 'POST',
          url: `/v1/${signal}`,
          headers: { 'content-type': protobuf ? 'application/x-protobuf' : 'application/json', ...bearer(apiKey) },
          payload,
        });
        expect(response.statusCode, `${what} → ${response.statusCode} ${response.body.slice(0, 200)}`).toBe(200);
        if (protobuf || piece === 'nul') return;
        const partial = (response.json() as { partialSuccess?: { errorMessage?: string } }).partialSuccess;
        if (where !== 'span name' || signal === 'traces') expect(partial?.errorMessage, what).toContain('unstorable_payload');
      }),
{ numRuns: Number(process.env.FUZZ_RUNS ?? 150) },
    );
  });
});
