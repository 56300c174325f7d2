import type { FastifyRequest } from 'fastify';
import { requireApiKey, type AuthContext } from '../auth/credentials.ts';
import { JSON_MEDIA_TYPE, TEXT_MEDIA_TYPE } from '../http/body-parsers.ts';
import { AppError } from '../http/errors.ts';
import { JsonScanner } from '../http/json-scan.ts';

/**
 * preParsing hook of the ingestion routes: the API key is checked before the body is read
 * (docs/hostile-input.md). An accepted key lets the body be parsed as usual. A refused one
 * still answers in the protocol's order (1.5: size, media type and JSON syntax before the
 * credential, then the query string): the body is streamed through a syntax check and
 * dropped, so a refused request costs a bounded scan and no memory for its body.
 */
export function apiKeyBeforeBody(ctx: AuthContext, bodyLimit: number, checkQuery: (request: FastifyRequest) => unknown) {
  return async (request: FastifyRequest, _reply: unknown, payload: NodeJS.ReadableStream) => {
    const type = request.headers['content-type'] ?? '';
    const json = JSON_MEDIA_TYPE.test(type);
    // Other types are answered 415 (or malformed when empty) by the parsers, before any credential.
    if (!json && !TEXT_MEDIA_TYPE.test(type)) return payload;
    try {
      await requireApiKey(request, ctx);
      return payload;
    } catch (refusal) {
      if (!(refusal instanceof AppError) || refusal.code !== 'unauthorized') throw refusal;
      if (!(await drainIsWellFormed(payload, json, bodyLimit))) throw new AppError('malformed_json', 'The body is not valid JSON.');
      checkQuery(request);
      throw refusal;
    }
  };
}

/** Reads the body to its end, keeping nothing; false when a JSON body is not one valid value. */
async function drainIsWellFormed(payload: NodeJS.ReadableStream, json: boolean, bodyLimit: number): Promise<boolean> {
  const scanner = json ? new JsonScanner(false) : null;
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let size = 0;
  let valid = true;
  for await (const chunk of payload) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += bytes.length;
    if (size > bodyLimit) throw new AppError(413, 'payload_too_large', 'The request body is larger than allowed.');
    if (scanner === null || !valid) continue;
    try {
      valid = scanner.push(decoder.decode(bytes, { stream: true }));
    } catch {
      valid = false; // invalid UTF-8
    }
  }
  if (scanner === null) return true;
  try {
    if (valid) valid = scanner.push(decoder.decode());
  } catch {
    valid = false;
  }
  return valid && scanner.end() !== null;
}
