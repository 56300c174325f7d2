// Masking of credential-shaped text in error messages and kept stacks (event protocol 5.8).
//
// Every pattern here is recognized by its shape, never by entropy: random identifiers are the
// data operators look at. Each pass runs in linear time: regexes start at a literal prefix behind
// a boundary (so a run of characters is scanned from one start only) and have no nested
// quantifiers; the URL and assignment passes are hand-written scanners. Every pass leaves
// `[REDACTED]` as a fixed point, which makes the whole masker idempotent (the SDK and the server
// both mask the same text).
import { foldName, isFoldedBuiltInSecretName } from './secret-names.ts';

const REDACTED = '[REDACTED]';

// 1. PEM and PGP private key blocks; an unterminated block is masked to the end of the text.
export const PRIVATE_KEY_BLOCK =
  /-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----|$)/g;

// 3. JSON Web Tokens: two base64url segments starting with `eyJ` (`{"`), then a signature that
// may be empty (alg none).
export const JWT = /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]*\.eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*/g;

// 4. Provider-prefixed keys. Minimum body lengths keep prose and identifiers (`sk-learn`,
// `hf_model`) out while every real key of these families is longer. The leading boundary covers
// the body characters so that a run of characters starts at most one scan.
const B = '(?<![A-Za-z0-9_-])';
const E = '(?![A-Za-z0-9])';
export const PROVIDER_KEYS = new RegExp(
  [
    `${B}(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}`, // Stripe secret and restricted keys
    `${B}whsec_[A-Za-z0-9+/=]{16,}`, // Stripe webhook signing secrets
    `${B}xox[a-z]-[A-Za-z0-9-]{10,}`, // Slack bot, user, app-level tokens
    `${B}xapp-[A-Za-z0-9-]{10,}`, // Slack app tokens
    `${B}gh[pousr]_[A-Za-z0-9]{20,}`, // GitHub tokens
    `${B}github_pat_[A-Za-z0-9_]{20,}`, // GitHub fine-grained tokens
    `${B}glpat-[A-Za-z0-9_-]{20,}`, // GitLab personal access tokens
    `${B}(?:AKIA|ASIA)[A-Z0-9]{16}${E}`, // AWS access key ids
    `${B}AIza[A-Za-z0-9_-]{35}${E}`, // Google API keys
    // OpenAI and Anthropic (sk-proj-…, sk-ant-api03-…): real keys run 48+ characters, while
    // hyphenated names that happen to start with `sk-` (`sk-payments-gateway`) are shorter.
    `${B}sk-[A-Za-z0-9_-]{32,}`,
    `${B}npm_[A-Za-z0-9]{30,}`, // npm tokens
    `${B}SG\\.[A-Za-z0-9_-]{16,}\\.[A-Za-z0-9_-]{16,}`, // SendGrid
    `${B}hf_[A-Za-z0-9]{30,}`, // Hugging Face
    `${B}jtk_[A-Za-z0-9_-]{32}(?![A-Za-z0-9_-])`, // this service's API keys
  ].join('|'),
  'g',
);

// 5. The secret segment of Slack and Discord webhook URLs: the last path segment is the secret.
// The negative lookahead makes an already masked URL (`…/B00/[REDACTED]`) match nothing.
export const SLACK_WEBHOOK =
  /(hooks\.slack\.com\/(?:services|workflows|triggers)\/(?:[A-Za-z0-9_-]+\/)+)[A-Za-z0-9_-]+(?![A-Za-z0-9_/-])/g;
export const DISCORD_WEBHOOK =
  /((?:discord|discordapp)\.com\/api\/(?:v[0-9]{1,2}\/)?webhooks\/[0-9]+\/)[A-Za-z0-9_-]+/g;

// 6. Authorization schemes. Digest carries an auth-param list (`username="…", response="…"`),
// masked to the end of the line; Bearer and Basic (and a token68 Digest) carry one credential.
export const DIGEST_PARAMS = /(?<![A-Za-z0-9_-])(digest[ \t]+)[A-Za-z][A-Za-z0-9_-]*[ \t]*=[^\r\n]*/gi;
export const SCHEME_CREDENTIAL = /(?<![A-Za-z0-9_-])((?:bearer|basic|digest)[ \t]+)([A-Za-z0-9._~+/-]+=*)/gi;
export const MIN_SCHEME_CREDENTIAL = 8;

/**
 * A credential must be at least 8 characters (5.8). A lower-case word is prose, not a credential
 * (`Basic authentication failed`, `Bearer undefined`): base64 and token68 credentials carry
 * digits, capitals or punctuation. This is a shape rule, not an entropy guess.
 */
function maskSchemeCredential(match: string, scheme: string, credential: string): string {
  if (credential.length < MIN_SCHEME_CREDENTIAL || /^[a-z]+$/.test(credential)) return match;
  return scheme + REDACTED;
}

/** Characters that end a URL authority (RFC 3986), plus quotes and angle brackets around URLs. */
export const AUTHORITY_END = new Set([' ', '\t', '\r', '\n', '/', '?', '#', '"', "'", '`', '<', '>', '\\']);

/**
 * 2. URL userinfo: `postgres://app:pw@db:5432/app` → `postgres://[REDACTED]@db:5432/app`.
 * The last `@` of the authority ends the userinfo, so an unencoded `@` in a password still
 * masks the whole password. Each authority is scanned once: linear.
 */
function maskUrlUserinfo(text: string): string {
  let out = '';
  let copied = 0;
  let from = 0;
  for (;;) {
    const sep = text.indexOf('://', from);
    if (sep < 0) break;
    const start = sep + 3;
    let end = start;
    let lastAt = -1;
    while (end < text.length && !AUTHORITY_END.has(text[end] ?? ' ')) {
      if (text[end] === '@') lastAt = end;
      end += 1;
    }
    if (lastAt > start) {
      out += text.slice(copied, start) + REDACTED;
      copied = lastAt;
    }
    from = Math.max(end, start);
  }
  return copied === 0 ? text : out + text.slice(copied);
}

// 7. Values assigned to secret-looking names (`password=…`, `"api_key":"…"`, `DB_PASSWORD=…`).
export const SECRET_LAST_WORDS = new Set([
  'password', 'passwd', 'pwd', 'passphrase', 'secret', 'token', 'credential', 'credentials',
]);
export const KEY_QUALIFIERS = new Set([
  'api', 'secret', 'private', 'access', 'account', 'signing', 'master', 'shared', 'encryption',
  'auth', 'session', 'client',
]);
// Paging and CSRF tokens are not secret (5.8): they are shown so that requests can be followed.
export const PUBLIC_TOKEN_QUALIFIERS = new Set([
  'page', 'paging', 'pagination', 'next', 'prev', 'previous', 'continuation', 'cursor', 'resume',
  'resumption', 'csrf', 'xsrf',
]);
const NAME_CHAR = /[A-Za-z0-9_.-]/;
export const MAX_NAME_LENGTH = 128;
// Ends an unquoted value: blanks and the delimiters of query strings, lists and structures.
export const VALUE_END = new Set([' ', '\t', '\r', '\n', '&', ',', ';', '"', "'", ')', ']', '}', '<', '>']);

/** Words of a name: split at `-`, `_`, `.` and camel-case humps (`DBPassword` → db, password). */
export function splitNameWords(name: string): string[] {
  const words: string[] = [];
  for (const part of name.split(/[-_.]+/)) {
    let word = '';
    for (let i = 0; i < part.length; i += 1) {
      const ch = part[i] ?? '';
      const prev = part[i - 1] ?? '';
      const next = part[i + 1] ?? '';
      const isUpper = ch >= 'A' && ch <= 'Z';
      const prevLowerOrDigit = /[a-z0-9]/.test(prev);
      const acronymEnd = /[A-Z]/.test(prev) && /[a-z]/.test(next);
      if (word !== '' && isUpper && (prevLowerOrDigit || acronymEnd)) {
        words.push(word.toLowerCase());
        word = '';
      }
      word += ch;
    }
    if (word !== '') words.push(word.toLowerCase());
  }
  return words;
}

/** 5.8 item 7: is a value assigned to `name` a secret? `before` is the character before the name. */
export function isSecretLookingName(name: string, before = ''): boolean {
  const folded = foldName(name);
  if (isFoldedBuiltInSecretName(folded)) return true;
  // `?key=…` is the query parameter of Google-style API keys.
  if (folded === 'key' && (before === '?' || before === '&')) return true;
  const words = splitNameWords(name);
  const last = words[words.length - 1] ?? '';
  const previous = words[words.length - 2] ?? '';
  if (SECRET_LAST_WORDS.has(last)) return !(last === 'token' && PUBLIC_TOKEN_QUALIFIERS.has(previous));
  if (last === 'key') return KEY_QUALIFIERS.has(previous);
  // One-word spellings such as `secretkey` or `PRIVATEKEY`.
  return last.endsWith('key') && KEY_QUALIFIERS.has(last.slice(0, -3));
}

interface NameBefore {
  readonly name: string;
  readonly quote: string;
  readonly start: number;
}

/** The name ending just before a separator (blanks and one quote allowed), or null. */
function readNameBefore(text: string, sep: number, floor: number): NameBefore | null {
  let end = sep;
  while (end > floor && (text[end - 1] === ' ' || text[end - 1] === '\t')) end -= 1;
  let quote = '';
  if (text[end - 1] === '"' || text[end - 1] === "'") {
    quote = text[end - 2] === '\\' && text[end - 1] === '"' ? '\\"' : (text[end - 1] ?? '');
    end -= quote.length;
  }
  let start = end;
  while (start > floor && end - start <= MAX_NAME_LENGTH && NAME_CHAR.test(text[start - 1] ?? '')) {
    start -= 1;
  }
  if (start === end || end - start > MAX_NAME_LENGTH) return null;
  if (quote !== '' && text.slice(start - quote.length, start) !== quote) return null;
  return { name: text.slice(start, end), quote, start: start - quote.length };
}

/** Where the value after a separator begins, past blanks, and its opening quote if any. */
function openValue(text: string, from: number): { pos: number; quote: string } {
  let pos = from;
  while (text[pos] === ' ' || text[pos] === '\t') pos += 1;
  if (text.startsWith('\\"', pos)) return { pos, quote: '\\"' };
  const ch = text[pos];
  return { pos, quote: ch === '"' || ch === "'" ? ch : '' };
}

/** The `[start, end)` extent of a value to replace (inside its quotes when quoted). */
function readValue(text: string, pos: number, quote: string): { start: number; end: number } {
  if (quote !== '') {
    // A quoted value ends at its closing quote, or at the end of the line when unterminated.
    const start = pos + quote.length;
    let end = start;
    while (end < text.length && text[end] !== '\r' && text[end] !== '\n') {
      if (text.startsWith(quote, end)) break;
      end += quote === '"' && text[end] === '\\' ? 2 : 1; // an escaped character is one unit
    }
    return { start, end: Math.min(end, text.length) };
  }
  let end = pos;
  while (end < text.length && !VALUE_END.has(text[end] ?? '')) {
    if (text.startsWith(REDACTED, end)) end += REDACTED.length; // an earlier mask is one unit
    else if (text[end] === '\\' && text[end + 1] === '"') break; // end of an escaped JSON string
    else end += 1;
  }
  return { start: pos, end };
}

/**
 * Masks values assigned to secret-looking names. `=` always assigns; a `:` assigns only after a
 * quoted name (`"token": …`) or before a quoted value, so that prose after an unquoted colon
 * (`Invalid token: expired`) is left alone. One left-to-right pass: linear.
 */
export function maskAssignments(text: string): string {
  let out = '';
  let copied = 0;
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (ch !== '=' && ch !== ':') {
      i += 1;
      continue;
    }
    const name = readNameBefore(text, i, copied);
    if (name === null || !isSecretLookingName(name.name, text[name.start - 1] ?? '')) {
      i += 1;
      continue;
    }
    const open = openValue(text, i + 1);
    // Prose after an unquoted colon is left alone; the value is not read, which keeps this linear.
    if (ch === ':' && name.quote === '' && open.quote === '') {
      i += 1;
      continue;
    }
    const value = readValue(text, open.pos, open.quote);
    const content = text.slice(value.start, value.end);
    if (content !== '' && content !== REDACTED) {
      out += text.slice(copied, value.start) + REDACTED;
      copied = value.end;
    }
    i = Math.max(i + 1, value.end);
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/**
 * Masks credential-shaped text (5.8): private key blocks, URL userinfo, JWTs, provider-prefixed
 * keys (including `jtk_` API keys), Slack and Discord webhook secrets, Bearer/Basic/Digest
 * credentials and values assigned to secret-looking names. Idempotent and linear.
 */
export function maskCredentialText(text: string): string {
  // Key blocks first, so that no later pass masks part of one; assignments last, so that a value
  // already reduced to `[REDACTED]` by a shape is recognized and left as it is.
  let out = text.replace(PRIVATE_KEY_BLOCK, REDACTED);
  out = maskUrlUserinfo(out);
  out = out.replace(SLACK_WEBHOOK, `$1${REDACTED}`);
  out = out.replace(DISCORD_WEBHOOK, `$1${REDACTED}`);
  out = out.replace(JWT, REDACTED);
  out = out.replace(PROVIDER_KEYS, REDACTED);
  out = out.replace(DIGEST_PARAMS, `$1${REDACTED}`);
  out = out.replace(SCHEME_CREDENTIAL, maskSchemeCredential);
  return maskAssignments(out);
}
