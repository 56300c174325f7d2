// User values may carry Unicode's explicit direction controls. Left in place, an override such as
// U+202E reverses the interface's own text after the value, or disguises the value itself
// ("a\u202Emoc.elpmaxe@bob" reads as "abob@example.com"). The interface isolates every user value
// (components/user-text.tsx) and shows each control as its code point instead of obeying it.

/** Embeddings and overrides (U+202A–U+202E), isolates (U+2066–U+2069) and the marks LRM, RLM, ALM. */
const BIDI_CONTROLS = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;

/** "U+202E" for a control character. */
export function codePoint(char: string): string {
  return 'U+' + char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
}

export type TextPart = { text: string } | { control: string };

/** The text cut around its direction controls; each control becomes its code point. */
export function splitBidiControls(text: string): TextPart[] {
  const parts: TextPart[] = [];
  let from = 0;
  for (const match of text.matchAll(BIDI_CONTROLS)) {
    if (match.index > from) parts.push({ text: text.slice(from, match.index) });
    parts.push({ control: codePoint(match[0]) });
    from = match.index + match[0].length;
  }
  if (from < text.length) parts.push({ text: text.slice(from) });
  return parts;
}

/** For plain-text places (document title, accessible names, SVG text): controls as "[U+202E]". */
export function showBidiControls(text: string): string {
  return text.replace(BIDI_CONTROLS, (char) => `[${codePoint(char)}]`);
}

/** For JSON shown as text: controls as JSON escapes ("\u202e"), which read back as the same value. */
export function escapeBidiControls(json: string): string {
  return json.replace(BIDI_CONTROLS, (char) => '\\u' + char.codePointAt(0)!.toString(16).padStart(4, '0'));
}
