// Shapes of answers shared by the route contracts, for the OpenAPI document. A schema given an
// `id` with `.meta` becomes a named component (components/schemas) of the document; the shapes
// of each capability are in ./answer-schemas/. Answers are documentation only: Fastify never
// serializes with them, and src/http/answers.int.test.ts checks them against real answers.
import { z } from 'zod';

/** `{ data: ... }`, the envelope of every successful JSON answer (interface spec 1). */
export function dataOf<T extends z.ZodType>(schema: T) {
  return z.strictObject({ data: schema });
}

/** A keyset page: items and the cursor of the next page (interface spec, Pagination). */
export function pageOf<T extends z.ZodType>(item: T) {
  return z.strictObject({
    items: z.array(item),
    nextCursor: z.string().nullable().describe('The cursor of the next page; null when nothing remains.'),
  });
}

/** `{ items: [...] }` without paging (projects, replay destinations). */
export function itemsOf<T extends z.ZodType>(item: T) {
  return z.strictObject({ items: z.array(item) });
}

/** Every timestamp jtrace sends: UTC, milliseconds, `YYYY-MM-DDThh:mm:ss.sssZ` (interface spec 1). */
export const timestampSchema = z
  .iso.datetime({ precision: 3 })
  .meta({ id: 'Timestamp', description: 'A UTC ISO 8601 timestamp with milliseconds: YYYY-MM-DDThh:mm:ss.sssZ.' });

/** Any JSON value as stored (payloads, responses); the key is always present, null included. */
export function jsonValue(description: string) {
  return z.unknown().describe(description);
}

/** The journey statuses (interface spec 3). */
export const journeyStatusSchema = z
  .enum(['active', 'completed', 'failed'])
  .meta({ id: 'JourneyStatus', description: 'active until an event fails or completes the journey (interface spec 3).' });

/** The operations of event protocol 3.1. */
export const operationSchema = z
  .enum(['received', 'identified', 'transformed', 'validated', 'persisted', 'published', 'consumed', 'delivered', 'failed', 'retried', 'completed'])
  .meta({ id: 'Operation', description: 'What the step did (event protocol 3.1).' });

/**
 * One change of a payloadDiff (event protocol 6), also a replay run's comparison: `added` has
 * `after`, `removed` has `before`, `changed` both, each the whole value at that path.
 */
export const payloadChangeSchema = z
  .discriminatedUnion('kind', [
    z.strictObject({ path: z.string(), kind: z.literal('added'), after: jsonValue('The value in the output.') }),
    z.strictObject({ path: z.string(), kind: z.literal('removed'), before: jsonValue('The value in the input.') }),
    z.strictObject({ path: z.string(), kind: z.literal('changed'), before: jsonValue('The value in the input.'), after: jsonValue('The value in the output.') }),
  ])
  .meta({ id: 'PayloadChange', description: 'A change between two payloads; path joins keys with "." and indices as [i], the root is "".' });

/** Problems of a refused value, one per path (interface spec 7; event protocol 2.6). */
export const errorDetailsSchema = z.array(z.strictObject({ path: z.string(), message: z.string() }));
