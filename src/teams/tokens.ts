// Personal access tokens of a person: made, listed and revoked by that person only.
import { writeAccountAudit, type AuditActor } from '../audit/audit-log.ts';
import { generatePersonalToken, hashPersonalToken } from '../crypto/personal-tokens.ts';
import type { Keyring } from '../crypto/keyring.ts';
import { withTransaction, type Pool } from '../db/pool.ts';
import { errors } from '../http/errors.ts';
import { formatTimestamp } from '../protocol/timestamps.ts';
import { insertPersonalToken, personalTokenExpiry, revokePersonalToken, type TokenRow } from './users-sql.ts';

export const MAX_TOKEN_NAME_LENGTH = 200;

/**
 * A new token of the person. Made with a token (`madeWithPrefix`), it expires no later than that
 * token: a copied token with an expiry could otherwise mint one without and outlive itself. A
 * token without an expiry may make any token, as a session may (docs/roles.md).
 */
export async function createPersonalToken(
  pool: Pool,
  keyring: Keyring,
  input: { userId: string; name: string; expiresAt: Date | null; madeWithPrefix: string | null },
  actor: AuditActor,
  nowMs: number,
): Promise<{ token: TokenRow; secret: string }> {
  const name = input.name.trim();
  if (name.length < 1 || name.length > MAX_TOKEN_NAME_LENGTH || name.includes('\u0000')) {
    throw errors.invalidRequest('name', `The name must have 1 to ${MAX_TOKEN_NAME_LENGTH} characters.`);
  }
  if (input.expiresAt !== null && input.expiresAt.getTime() <= nowMs) {
    throw errors.invalidRequest('expiresAt', 'The expiry must be in the future.');
  }
  if (input.madeWithPrefix !== null) {
    const limit = await personalTokenExpiry(pool, input.madeWithPrefix);
    if (limit !== null && (input.expiresAt === null || input.expiresAt.getTime() > limit.getTime())) {
      throw errors.invalidRequest('expiresAt', `A token made with a token expires no later than it does (${formatTimestamp(limit.getTime())}).`);
    }
  }
  const generated = generatePersonalToken();
  const stored = hashPersonalToken(keyring, generated.secret);
  return withTransaction(pool, async (client) => {
    const token = await insertPersonalToken(client, {
      userId: input.userId,
      name,
      prefix: generated.prefix,
      hash: stored.hash,
      hashKeyId: stored.keyId,
      createdAt: new Date(nowMs),
      expiresAt: input.expiresAt,
    });
    await writeAccountAudit(client, 'token.created', input.userId, { tokenPrefix: token.prefix }, actor);
    return { token, secret: generated.secret };
  });
}

export async function revokeOwnToken(pool: Pool, userId: string, tokenId: string, actor: AuditActor, nowMs: number): Promise<void> {
  await withTransaction(pool, async (client) => {
    const prefix = await revokePersonalToken(client, userId, tokenId, new Date(nowMs));
    if (prefix === null) throw errors.notFound('The token was not found.');
    await writeAccountAudit(client, 'token.revoked', userId, { tokenPrefix: prefix }, actor);
  });
}
