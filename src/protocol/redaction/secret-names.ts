// Built-in secret names and known header names (event protocol 5.4 and 5.6).

/**
 * The 22 built-in secret names (5.4). They apply at any depth in every capture mode and cannot
 * be disabled; names are compared in folded form, so each entry stands for all its spellings.
 */
export const BUILT_IN_SECRET_NAMES = [
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-api-key',
  'password',
  'access_token',
  'refresh_token',
  'client_secret',
  'api_key',
  'secret',
  'stripe-signature',
  'x-hub-signature',
  'x-hub-signature-256',
  'x-slack-signature',
  'x-hubspot-signature',
  'x-hubspot-signature-v3',
  'x-twilio-signature',
  'x-shopify-hmac-sha256',
  'card_number',
  'credit_card_number',
  'cc_number',
] as const;

/**
 * Known header names (5.6), lower case. A header shape needs one of them to be recognized as a
 * rawHeaders list, and a value that is itself one of them is never replaced, so that a plain list
 * of header names (`["Authorization", "Content-Type"]`) is left alone.
 */
export const KNOWN_HEADER_NAMES = [
  ':authority',
  ':method',
  ':path',
  ':protocol',
  ':scheme',
  ':status',
  'accept',
  'accept-encoding',
  'accept-language',
  'authorization',
  'cache-control',
  'connection',
  'content-length',
  'content-type',
  'cookie',
  'date',
  'etag',
  'host',
  'if-none-match',
  'location',
  'origin',
  'proxy-authorization',
  'referer',
  'set-cookie',
  'transfer-encoding',
  'user-agent',
  'vary',
  'www-authenticate',
  'x-api-key',
  'x-forwarded-for',
  'x-request-id',
] as const;

/**
 * Folds a name for comparison (5.4): lower-case, then delete every `-` and `_`.
 * `toLowerCase` (not `toLocaleLowerCase`) is used on purpose: the result must not depend on the
 * server's locale (a Turkish locale would fold `I` differently).
 */
const FOLD_REMOVED = /[-_]/g;

export function foldName(name: string): string {
  const lower = name.toLowerCase();
  // Most keys hold neither character: they skip the replace.
  return lower.includes('-') || lower.includes('_') ? lower.replace(FOLD_REMOVED, '') : lower;
}


const FOLDED_BUILT_INS: ReadonlySet<string> = new Set(BUILT_IN_SECRET_NAMES.map(foldName));
const KNOWN_HEADERS: ReadonlySet<string> = new Set(KNOWN_HEADER_NAMES);

/** True when `name` folds to one of the 22 built-in secret names (`APIKey` matches `api_key`). */
export function isBuiltInSecretName(name: string): boolean {
  return FOLDED_BUILT_INS.has(foldName(name));
}

/** True when `folded` (already folded) is a built-in secret name. */
export function isFoldedBuiltInSecretName(folded: string): boolean {
  return FOLDED_BUILT_INS.has(folded);
}

/**
 * True when `name` is a known header name in any case. Only case is ignored here, not `-`/`_`:
 * the list is about literal HTTP header names, not about secret-name spellings.
 */
export function isKnownHeaderName(name: string): boolean {
  return KNOWN_HEADERS.has(name.toLowerCase());
}
