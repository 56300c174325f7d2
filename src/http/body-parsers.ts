import type { FastifyInstance } from 'fastify';
import { AppError } from './errors.ts';
import { parseJsonWithBudget } from './json-scan.ts';

const utf8 = new TextDecoder('utf-8', { fatal: true });

function malformed(): AppError {
  return new AppError(400, 'malformed_json', 'The body is not valid JSON.');
}

/**
 * JSON.parse, not Fastify's default parser: the protocol keeps `__proto__` and `constructor`
 * as ordinary own keys (JSON.parse defines them as own properties), keeps the last of repeated
 * keys and reads numbers as doubles. Invalid UTF-8 is refused rather than replaced. Containers
 * nested deeper than MAX_PARSE_DEPTH are read as `[]` (src/http/json-scan.ts).
 */
export function parseJsonBody(body: Buffer): unknown {
  return parseJsonBodyWithBudget(body).value;
}

/** The same, telling whether containers past the budget were read as `[]`. */
export function parseJsonBodyWithBudget(body: Buffer): { value: unknown; pruned: boolean } {
  if (body.length === 0) throw malformed();
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    throw malformed();
  }
  // Checked and depth-bounded first: JSON.parse of a few million nested brackets takes seconds.
  const parsed = parseJsonWithBudget(text);
  if (parsed === null) throw malformed();
  return parsed;
}

/** Media types read as JSON and as a JSON string. */
export const JSON_MEDIA_TYPE = /^application\/json(\s*;.*)?$/i;
export const TEXT_MEDIA_TYPE = /^text\/plain(\s*;.*)?$/i;

export function registerBodyParsers(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(JSON_MEDIA_TYPE, { parseAs: 'buffer' }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(body as Buffer));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
  // text/plain is read as a JSON string: never an envelope, so routes refuse it by shape.
  app.addContentTypeParser(TEXT_MEDIA_TYPE, { parseAs: 'string' }, (_request, body, done) => {
    done(null, body);
  });
}
