// Shapes of answers shared by the route contracts, for the OpenAPI document.
import { z } from 'zod';

/** `{ data: ... }`, the envelope of every successful JSON answer (interface spec 4). */
export function dataOf(schema: z.ZodType) {
  return z.object({ data: schema });
}

/** A keyset page: items and the cursor of the next page (interface spec, Pagination). */
export const pageSchema = z.object({
  items: z.array(z.object({}).loose()),
  nextCursor: z.string().nullable(),
});

/** An object answer whose fields the interface spec lists (section 2). */
export const recordSchema = z.object({}).loose();
