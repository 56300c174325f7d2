import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateEnvironment } from '../projects/environments-sql.ts';
import { ADMIN, API_KEY, READERS, createReadFixture, get, ingest, urlWith, type Credential, type ReadFixture } from '../query/test-fixtures.ts';
import { contactJourney } from './test-journeys.ts';

let fx: ReadFixture;

beforeAll(async () => {
  fx = await createReadFixture();
  await ingest(fx, 'production', [
    ...contactJourney('jrn-lost', 'lost'),
    ...contactJourney('jrn-kept', 'kept'),
    ...contactJourney('jrn-transit', 'transit'),
    {
      id: 'sec-1', journeyId: 'jrn-secret', timestamp: '2026-02-10T10:00:00.000Z',
      input: { auth: { password: 'hunter2' }, items: [{ sku: 'A', qty: 1 }, { sku: 'B', qty: 2 }] },
      output: { auth: { password: 'hunter3' }, items: [{ sku: 'A', qty: 1 }] },
    },
  ]);
  // Staging: two captured steps, one under metadata-only, then one captured again without the phone.
  const [receive, normalize, persist, publish] = contactJourney('jrn-mixed', 'kept');
  await ingest(fx, 'staging', [receive!, normalize!]);
  await updateEnvironment(fx.db.pool, fx.projectId, 'staging', { captureMode: 'metadata-only' });
  await ingest(fx, 'staging', [persist!]);
  await updateEnvironment(fx.db.pool, fx.projectId, 'staging', { captureMode: 'redacted-payload' });
  await ingest(fx, 'staging', [{ ...publish!, input: { customer: { name: 'Ada Lovelace' } }, output: { customer: { name: 'Ada Lovelace' } } }]);
});
afterAll(async () => fx.close());

const follow = (credential: Credential, journeyId: string, path: string) =>
  get(fx, credential, urlWith(`/v1/journeys/${encodeURIComponent(journeyId)}/fields`, [['path', path]]));

interface Step {
  eventId: string;
  name: string;
  verdict: string;
  input: { state: string; value?: unknown } | null;
  output: { state: string; value?: unknown } | null;
  handOff: { from: { eventId: string; name: string }; verdict: string } | null;
}
const data = (response: { json(): unknown }) =>
  (response.json() as { data: { steps: Step[]; firstLoss: Record<string, unknown> | null; firstDifference: Record<string, unknown> | null; truncated: boolean; path: string; journeyId: string } }).data;
const verdicts = (steps: Step[]) => steps.map((step) => [step.name, step.handOff?.verdict ?? null, step.verdict]);

describe('GET /v1/journeys/:journeyId/fields', () => {
  it.each(READERS)('names the step that lost the phone number (%s)', async (_label, credential) => {
    const response = await follow(credential, 'jrn-lost', 'customer.phone');
    expect(response.statusCode).toBe(200);
    const body = data(response);
    expect(body).toMatchObject({ journeyId: 'jrn-lost', path: 'customer.phone', truncated: false });
    expect(verdicts(body.steps)).toEqual([
      ['receive', null, 'appeared'],
      ['normalize-contact', 'unchanged', 'lost'],
      ['persist', 'absent', 'absent'],
      ['publish', 'absent', 'absent'],
      ['consume', 'absent', 'absent'],
      ['deliver', 'absent', 'absent'],
    ]);
    expect(body.steps[1]).toMatchObject({
      eventId: 'jrn-lost-1-normalize',
      input: { state: 'present', value: '+44 20 7946 0018' },
      output: { state: 'missing' },
    });
    const finding = { eventId: 'jrn-lost-1-normalize', service: 'contacts', name: 'normalize-contact', verdict: 'lost', inTransit: false, from: null };
    expect(body.firstLoss).toEqual(finding);
    expect(body.firstDifference).toEqual(finding);
  });

  it('reports a value that left one service and never reached the next as lost in transit, naming both', async () => {
    const body = data(await follow(API_KEY, 'jrn-transit', 'customer.phone'));
    expect(body.steps[1]!.verdict).toBe('unchanged');
    expect(body.steps[2]).toMatchObject({ name: 'persist', verdict: 'absent', handOff: { from: { eventId: 'jrn-transit-1-normalize', name: 'normalize-contact' }, verdict: 'lost' } });
    expect(body.firstLoss).toEqual({
      eventId: 'jrn-transit-2-persist', service: 'crm', name: 'persist', verdict: 'lost', inTransit: true,
      from: { eventId: 'jrn-transit-1-normalize', service: 'contacts', name: 'normalize-contact' },
    });
  });

  it('a journey that kept the value has no finding', async () => {
    const body = data(await follow(API_KEY, 'jrn-kept', 'customer.phone'));
    expect(body.firstLoss).toBeNull();
    expect(body.firstDifference).toBeNull();
    expect(body.steps.slice(1).every((step) => step.verdict === 'unchanged' && step.handOff?.verdict === 'unchanged')).toBe(true);
  });

  it('names changes and appearances: the CRM id appears in persist', async () => {
    const body = data(await follow(API_KEY, 'jrn-kept', 'crmId'));
    expect(verdicts(body.steps).slice(0, 3)).toEqual([
      ['receive', null, 'absent'],
      ['normalize-contact', 'absent', 'absent'],
      ['persist', 'absent', 'appeared'],
    ]);
    expect(body.firstDifference).toBeNull();
  });

  it('reports redacted values as redacted, never as lost or changed', async () => {
    const body = data(await follow(API_KEY, 'jrn-secret', 'auth.password'));
    expect(body.steps[0]).toMatchObject({ verdict: 'redacted', input: { state: 'redacted', value: '[REDACTED]' }, output: { state: 'redacted', value: '[REDACTED]' } });
    expect(JSON.stringify(body)).not.toContain('hunter');
    expect(body.firstLoss).toBeNull();
  });

  it('follows every element of an array with [*], and one element by index', async () => {
    const every = data(await follow(API_KEY, 'jrn-secret', 'items[*].sku'));
    expect(every.steps[0]).toMatchObject({ verdict: 'changed', input: { value: ['A', 'B'] }, output: { value: ['A'] } });
    const second = data(await follow(API_KEY, 'jrn-secret', 'items[1].qty'));
    expect(second.steps[0]).toMatchObject({ verdict: 'lost', input: { value: 2 }, output: { state: 'missing' } });
  });

  it('reports steps whose capture mode kept no payload as not captured, and skips them across the hand-off', async () => {
    const admin = data(await follow(ADMIN, 'jrn-mixed', 'customer.phone'));
    expect(verdicts(admin.steps)).toEqual([
      ['receive', null, 'appeared'],
      ['normalize-contact', 'unchanged', 'unchanged'],
      ['persist', null, 'not_captured'],
      ['publish', 'lost', 'absent'],
    ]);
    expect(admin.steps[2]).toMatchObject({ input: null, output: null });
    expect(admin.firstLoss).toMatchObject({ name: 'publish', inTransit: true, from: { name: 'normalize-contact' } });
  });

  it('stays within the API key environment: another environment journey is not found', async () => {
    expect((await follow(API_KEY, 'jrn-mixed', 'customer.phone')).statusCode).toBe(404);
    expect((await follow({ kind: 'api-key', environment: 'staging' }, 'jrn-mixed', 'customer.phone')).statusCode).toBe(200);
    expect((await follow({ kind: 'api-key', environment: 'staging' }, 'jrn-lost', 'customer.phone')).statusCode).toBe(404);
  });
});
