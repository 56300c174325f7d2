// Editing a destination (PATCH /v1/replay-destinations/:id, an extension of section 4; see
// docs/decisions.md "Destinations can be edited"). Header values stay write-only: `headers` is a
// merge patch, so a name mapped to a string sets that value, a name mapped to null removes the
// header, and a name left out keeps its value without the editor ever reading it, unless the
// base URL changes: then every stored header must be given again.

import { z } from 'zod';
import type { AuditActor } from '../audit/audit-log.ts';
import { changedSettings, recordSettingsChange, type SettingsSnapshot } from '../audit/settings-history.ts';
import { encryptField } from '../crypto/field-encryption.ts';
import type { Keyring } from '../crypto/keyring.ts';
import { withTransaction, type Pool } from '../db/pool.ts';
import { invalidBody, issueDetails } from '../http/body-fields.ts';
import { AppError } from '../http/errors.ts';
import { isUuid } from '../protocol/identifiers.ts';
import { supersedingKeyId } from '../rotation/key-mismatch.ts';
import { destinationBodySchema } from './destination-input.ts';
import { destinationView, type DestinationView } from './destinations.ts';
import { findDestinationRow, updateDestinationRow, type DestinationRow } from './destinations-sql.ts';
import { checkDestinationHeaders, type DestinationHeaders } from './header-policy.ts';
import { MAX_DESTINATION_HEADERS } from './limits.ts';
import { decryptHeaders } from './replays.ts';

/** A header value to set, or null to remove the header. */
const headerPatchSchema = z
  .record(z.string(), z.string().nullable())
  .meta({ description: 'Merge patch: a string sets the value, null removes the header, a name left out keeps its value.' });

/** Every field optional; unknown keys are refused, so a misspelt field is not silently dropped. */
export const destinationPatchSchema = z.strictObject({
  name: destinationBodySchema.shape.name.optional(),
  baseUrl: destinationBodySchema.shape.baseUrl.optional(),
  headers: z.unknown().optional().meta({ type: 'object', additionalProperties: { type: ['string', 'null'] }, description: headerPatchSchema.description }),
  disabled: z.boolean({ error: 'must be true or false' }).optional(),
});

export interface DestinationPatch {
  name?: string;
  baseUrl?: string;
  /** Names to set (string) or remove (null), case-insensitive against the stored names. */
  headers?: Record<string, string | null>;
  disabled?: boolean;
}

/** Throws 400 invalid_request listing every problem, with the create body's paths and messages. */
export function parseDestinationPatch(body: unknown): DestinationPatch {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalidBody([{ path: '', message: 'the body must be a JSON object' }]);
  }
  const parsed = destinationPatchSchema.safeParse(body);
  const problems = parsed.success ? [] : issueDetails(parsed.error.issues);
  const headers = (body as { headers?: unknown }).headers;
  if (headers !== undefined) problems.push(...headerPatchProblems(headers));
  if (problems.length > 0 || !parsed.success) throw invalidBody(problems);
  const patch: DestinationPatch = {};
  if (parsed.data.name !== undefined) patch.name = parsed.data.name;
  if (parsed.data.baseUrl !== undefined) patch.baseUrl = parsed.data.baseUrl;
  if (parsed.data.disabled !== undefined) patch.disabled = parsed.data.disabled;
  if (headers !== undefined) patch.headers = headers as Record<string, string | null>;
  return patch;
}

/** The create rules for the values set; a removal only needs a name that could have been stored. */
function headerPatchProblems(value: unknown): { path: string; message: string }[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return [{ path: 'headers', message: 'must be an object of header name to string value or null' }];
  }
  const entries = Object.entries(value as Record<string, unknown>);
  const asSet = Object.fromEntries(entries.map(([name, v]) => [name, v === null ? 'x' : v]));
  const checked = checkDestinationHeaders(asSet);
  return checked.ok ? [] : checked.problems;
}

/** What the history shows of a destination: never a header value, never the encrypted blob. */
function snapshot(row: Pick<DestinationRow, 'name' | 'base_url' | 'header_names'>): SettingsSnapshot {
  return { name: row.name, baseUrl: row.base_url, headerNames: [...row.header_names] };
}

/** The stored headers with the patch applied; names match case-insensitively, the patch's spelling wins. */
export function mergeHeaders(current: DestinationHeaders, patch: Record<string, string | null>): DestinationHeaders {
  const merged = new Map(Object.entries(current).map(([name, value]) => [name.toLowerCase(), [name, value] as const]));
  for (const [name, value] of Object.entries(patch)) {
    if (value === null) merged.delete(name.toLowerCase());
    else merged.set(name.toLowerCase(), [name, value]);
  }
  return Object.fromEntries([...merged.values()]);
}

/**
 * Applies a patch in one transaction with its history rows: `replay_destination.updated` with
 * before/after of name, base URL and header names (values only as "set"), and
 * `.disabled` / `.enabled` when the flag changes. No audit row: section 6 lists none for edits.
 */
export async function updateDestination(
  pool: Pool,
  keyring: Keyring,
  projectId: string,
  id: string,
  patch: DestinationPatch,
  actor: AuditActor,
): Promise<DestinationView | null> {
  if (!isUuid(id)) return null;
  if (patch.headers !== undefined && (await supersedingKeyId(pool, keyring)) !== null) {
    throw new AppError('key_superseded', 'This server runs on an encryption key that a rotation replaced; restart it with the new ENCRYPTION_KEY.');
  }
  return withTransaction(pool, async (client) => {
    const row = await findDestinationRow(client, projectId, id, true);
    if (row === null) return null;
    if (patch.baseUrl !== undefined && patch.baseUrl !== row.base_url) requireHeadersRestated(row, patch.headers);
    let headersEncrypted = row.headers_encrypted;
    let headerNames = row.header_names;
    const valuesSet: string[] = [];
    if (patch.headers !== undefined) {
      const headers = mergeHeaders(storedHeadersFor(keyring, row, patch.headers), patch.headers);
      if (Object.keys(headers).length > MAX_DESTINATION_HEADERS) {
        throw invalidBody([{ path: 'headers', message: `must leave at most ${MAX_DESTINATION_HEADERS} headers` }]);
      }
      headersEncrypted = encryptField(keyring, JSON.stringify(headers));
      headerNames = Object.keys(headers);
      valuesSet.push(...Object.entries(patch.headers).filter(([, value]) => value !== null).map(([name]) => name));
    }
    const disabled = patch.disabled ?? row.disabled;
    const next = { name: patch.name ?? row.name, base_url: patch.baseUrl ?? row.base_url, header_names: headerNames };
    const updated = await updateDestinationRow(client, projectId, row.id, { ...next, headers_encrypted: headersEncrypted, disabled });
    const change = changedSettings(
      { ...snapshot(row), headerValuesSet: [] },
      { ...snapshot(next), headerValuesSet: valuesSet },
    );
    if (change !== null) {
      await recordSettingsChange(client, projectId, { action: 'replay_destination.updated', subject: row.id, ...change }, actor);
    }
    if (disabled !== row.disabled) {
      const action = disabled ? 'replay_destination.disabled' : 'replay_destination.enabled';
      await recordSettingsChange(client, projectId, { action, subject: row.id, before: { disabled: row.disabled }, after: { disabled } }, actor);
    }
    return destinationView(updated);
  });
}

/**
 * A stored header value was given for the old base URL: carried to a new one, it would let any
 * project admin send another admin's secret to whatever allowed host they name. So a URL change
 * must give every stored header again, a new value or null (docs/api.md); the values are never
 * read for it, and the history row's headerValuesSet then names every header that remains.
 */
function requireHeadersRestated(row: DestinationRow, headers: Record<string, string | null> | undefined): void {
  const named = new Set(Object.keys(headers ?? {}).map((name) => name.toLowerCase()));
  const missing = row.header_names.filter((name) => !named.has(name.toLowerCase()));
  if (missing.length === 0) return;
  throw invalidBody([
    { path: 'headers', message: `a new base URL needs every stored header given again, a new value or null: ${missing.join(', ')}` },
  ]);
}

/**
 * The stored values the patch keeps. When they cannot be decrypted under this server's keys,
 * an edit that names every stored header (a new value or null) still works: it needs none.
 */
function storedHeadersFor(keyring: Keyring, row: DestinationRow, patch: Record<string, string | null>): DestinationHeaders {
  const named = new Set(Object.keys(patch).map((name) => name.toLowerCase()));
  if (row.header_names.every((name) => named.has(name.toLowerCase()))) return {};
  const current = decryptHeaders(keyring, row.headers_encrypted);
  if (current === null) {
    throw invalidBody([
      { path: 'headers', message: 'the stored header values cannot be decrypted under the configured keys: give every header a new value or null' },
    ]);
  }
  return current;
}
