// Identifiers and the text checks every capability applies to them: the UUID form, alias and
// entity-id normalizing for search tokens (event-protocol 4.2), NUL, code points and
// well-formed UTF-16.

// 8-4-4-4-12 hex digits, any version or variant: callers copy UUIDs in either case.
const UUID_FORM = /^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$/;

// Without the `u` flag the pattern works on UTF-16 code units, which is what is needed to spot
// halves of surrogate pairs that have no partner.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** True for the 8-4-4-4-12 hex form in either case (project, destination and run ids). */
export function isUuid(value: string): boolean {
  return UUID_FORM.test(value);
}

/**
 * The form an entity id or alias value is matched by (search token, identity of an alias):
 * surrounding white space trimmed, a UUID-form value lower-cased, nothing else. Other values
 * keep their case: identifiers such as Salesforce ids are case-sensitive.
 */
export function normalizeIdentifier(value: string): string {
  // String.prototype.trim removes Unicode white space and line terminators (incl. U+FEFF).
  const trimmed = value.trim();
  return UUID_FORM.test(trimmed) ? trimmed.toLowerCase() : trimmed;
}

/** Holds a NUL character: PostgreSQL text cannot store it, so it is refused before any query. */
export function hasNul(value: string): boolean {
  return value.includes('\u0000');
}

/** Length in code points, the unit of every character limit of the spec. */
export function codePointLength(value: string): number {
  return [...value].length;
}

/** True when the string has no unpaired surrogate, i.e. it survives a UTF-8 round trip. */
export const isWellFormedText: (value: string) => boolean =
  // String.prototype.isWellFormed (ES2024, Node 20) answers the same natively, several times
  // faster than the pattern on long text; every hashed, tokenized or encrypted value is checked.
  typeof (String.prototype as { isWellFormed?: unknown }).isWellFormed === 'function'
    ? (value) => (value as string & { isWellFormed(): boolean }).isWellFormed()
    : (value) => !LONE_SURROGATE.test(value);

/** The same answer by pattern, wherever the runtime has isWellFormed or not (kept for tests). */
export function isWellFormedTextByPattern(value: string): boolean {
  return !LONE_SURROGATE.test(value);
}

/**
 * Bytes of the string encoded as UTF-8, counting an unpaired surrogate as the 3 bytes of the
 * U+FFFD it would become (as Node's Buffer.byteLength does). Written out because the kernel may
 * use neither Buffer (Node) nor TextEncoder (DOM).
 */
export function utf8ByteLength(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) continue;
    if (unit < 0x800) bytes += 1;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      // A pair is 2 units and 4 bytes; a lone high surrogate falls through to 3 bytes.
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 2;
        i++;
      } else bytes += 2;
    } else bytes += 2;
  }
  return bytes;
}
