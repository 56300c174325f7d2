// Journey ids (event protocol 4.5, 4.6): `jrn_` + a random UUID, or derived from the entity under
// a host secret so that every service names the same journey without talking to each other.
import { createHmac, randomUUID } from 'node:crypto';
import { isWellFormedText } from './shared-rules.ts';

/** The smallest secret accepted for derivation, in UTF-8 bytes (4.6). */
export const MIN_JOURNEY_ID_SECRET_BYTES = 32;
const DERIVATION_LABEL = 'journey-id/v1';

export function randomJourneyId(): string {
  return `jrn_${randomUUID()}`;
}


/** 4-byte big-endian length of the UTF-8 bytes, then the bytes. */
function field(text: string): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  const length = Buffer.alloc(4);
  length.writeUInt32BE(bytes.length);
  return Buffer.concat([length, bytes]);
}

/**
 * `jrn_` + the first 32 hex characters of HMAC-SHA256(secret, field("journey-id/v1") ‖
 * field(environment) ‖ field(type) ‖ field(id)) (4.6). Null when a string has an unpaired
 * surrogate: it has no UTF-8 form, so the caller uses a random id.
 */
export function deriveJourneyId(secret: string, environment: string, entity: { type: string; id: string }): string | null {
  if (![environment, entity.type, entity.id].every(isWellFormedText)) return null;
  const mac = createHmac('sha256', Buffer.from(secret, 'utf8'));
  for (const part of [DERIVATION_LABEL, environment, entity.type, entity.id]) mac.update(field(part));
  return `jrn_${mac.digest('hex').slice(0, 32)}`;
}

export function isUsableSecret(secret: string): boolean {
  return isWellFormedText(secret) && Buffer.byteLength(secret, 'utf8') >= MIN_JOURNEY_ID_SECRET_BYTES;
}
