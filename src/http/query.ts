import { AppError, errors } from './errors.ts';

/** True when every %-escape in the text is well formed and decodes to UTF-8. */
export function isWellEncoded(text: string): boolean {
  try {
    decodeURIComponent(text.replace(/\+/g, ' '));
    return true;
  } catch {
    return false;
  }
}

export function rawQueryString(rawUrl: string): string {
  const at = rawUrl.indexOf('?');
  return at === -1 ? '' : rawUrl.slice(at + 1);
}

export function assertWellEncodedUrl(rawUrl: string): void {
  if (!isWellEncoded(rawUrl)) {
    throw new AppError(400, 'bad_url', 'The URL holds malformed percent-encoding.');
  }
}

export type QueryValues<K extends string> = Partial<Record<K, string>>;

/**
 * The one query-string reader of every route: an unknown or repeated name, or a NUL in a value,
 * is refused (a cursor gets invalid_cursor), so no route can silently ignore a parameter.
 */
export function parseQuery<K extends string>(rawUrl: string, allowed: readonly K[]): QueryValues<K> {
  const params = new URLSearchParams(rawQueryString(rawUrl));
  const seen = new Map<string, string>();
  for (const [name, value] of params) {
    if (!(allowed as readonly string[]).includes(name)) {
      throw errors.invalidQuery(name, `Unknown query parameter ${JSON.stringify(name.slice(0, 64))}.`);
    }
    if (seen.has(name)) {
      if (name === 'cursor') throw errors.invalidCursor('The cursor is given more than once.');
      throw errors.invalidQuery(name, `The parameter ${name} is given more than once.`);
    }
    if (value.includes('\u0000')) {
      if (name === 'cursor') throw errors.invalidCursor('The cursor holds a NUL character.');
      throw errors.invalidQuery(name, `The parameter ${name} holds a NUL character.`);
    }
    seen.set(name, value);
  }
  return Object.fromEntries(seen) as QueryValues<K>;
}
