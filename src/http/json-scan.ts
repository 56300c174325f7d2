// A streaming JSON syntax check with a nesting budget (docs/hostile-input.md).
//
// JSON.parse takes seconds and hundreds of megabytes on a body of a few million nested
// brackets, so no body reaches it unchecked: the scanner walks the text once, in chunks, keeping
// only a bit per open container. It answers whether the text is one valid JSON value, and,
// when asked to keep it, returns the text with every container nested deeper than the budget
// replaced by `[]`. Whatever was that deep is refused anyway (an event's values may be at most
// 32 levels below its envelope; no other body is nested at all), and the replacement keeps a
// too-deep value in place, so a refusal of the pruned value is the refusal of the original.

/** Containers nested deeper than this are pruned: twice the deepest value an event may hold in a batch. */
export const MAX_PARSE_DEPTH = 64;

const enum S {
  Value, // a value is expected
  FirstOrEnd, // after '[': a value or ']'
  KeyOrEnd, // after '{': a key or '}'
  Key, // after ',' in an object
  Colon,
  After, // after a value: ',', a close, or the end
  Str,
  Esc,
  Hex,
  Lit,
  NumMinus,
  NumZero,
  NumInt,
  NumDot,
  NumFrac,
  NumE,
  NumESign,
  NumExp,
}

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isHex = (c: number) => isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;

export class JsonScanner {
  #state: S = S.Value;
  #depth = 0;
  #maxDepth = 0;
  /** One bit per open container: 1 for an object. */
  #stack = new Uint32Array(8);
  #stringIsKey = false;
  #hexLeft = 0;
  #literal = '';
  #literalAt = 0;
  #failed = false;
  readonly #keep: string[] | null;
  /** Start of the text kept from the current chunk (before a pruned container). */
  #keepFrom = 0;

  /** keep: collect the pruned text for parsing; otherwise only check it. */
  constructor(
    keep: boolean,
    readonly budget = MAX_PARSE_DEPTH,
  ) {
    this.#keep = keep ? [] : null;
  }

  get maxDepth(): number {
    return this.#maxDepth;
  }

  /** Feeds the next piece of text; false once the text is known to be malformed. */
  push(text: string): boolean {
    if (this.#failed) return false;
    this.#keepFrom = 0;
    for (let i = 0; i < text.length; i++) {
      if (!this.#step(text.charCodeAt(i), text, i)) {
        this.#failed = true;
        return false;
      }
    }
    if (this.#keep !== null && this.#depth <= this.budget) this.#keep.push(text.slice(this.#keepFrom));
    return true;
  }

  /** Ends the text: the pruned text when kept and valid, '' when only checked and valid, null when malformed. */
  end(): string | null {
    if (this.#failed) return null;
    // A number at the very end is complete; anything else open is not.
    if (this.#state === S.NumZero || this.#state === S.NumInt || this.#state === S.NumFrac || this.#state === S.NumExp) {
      this.#state = this.#depth === 0 ? S.After : this.#state;
    }
    if (this.#state !== S.After || this.#depth !== 0) return null;
    return this.#keep === null ? '' : this.#keep.join('');
  }

  #isObject(): boolean {
    const d = this.#depth - 1;
    return ((this.#stack[d >>> 5]! >>> (d & 31)) & 1) === 1;
  }

  #open(isObject: boolean, text: string, i: number): void {
    const d = this.#depth;
    if (d >>> 5 >= this.#stack.length) {
      const grown = new Uint32Array(this.#stack.length * 2);
      grown.set(this.#stack);
      this.#stack = grown;
    }
    if (isObject) this.#stack[d >>> 5]! |= 1 << (d & 31);
    else this.#stack[d >>> 5]! &= ~(1 << (d & 31));
    this.#depth = d + 1;
    if (this.#depth > this.#maxDepth) this.#maxDepth = this.#depth;
    if (this.#keep !== null && this.#depth === this.budget + 1) {
      this.#keep.push(text.slice(this.#keepFrom, i), '[]');
    }
  }

  #close(text: string, i: number): void {
    this.#depth--;
    if (this.#keep !== null && this.#depth === this.budget) this.#keepFrom = i + 1;
    void text;
    this.#state = S.After;
  }

  #startValue(c: number, text: string, i: number): boolean {
    switch (c) {
      case 0x7b: // {
        this.#open(true, text, i);
        this.#state = S.KeyOrEnd;
        return true;
      case 0x5b: // [
        this.#open(false, text, i);
        this.#state = S.FirstOrEnd;
        return true;
      case 0x22: // "
        this.#stringIsKey = false;
        this.#state = S.Str;
        return true;
      case 0x2d: // -
        this.#state = S.NumMinus;
        return true;
      case 0x30:
        this.#state = S.NumZero;
        return true;
      case 0x74:
        return this.#startLiteral('true');
      case 0x66:
        return this.#startLiteral('false');
      case 0x6e:
        return this.#startLiteral('null');
      default:
        if (isDigit(c)) {
          this.#state = S.NumInt;
          return true;
        }
        return false;
    }
  }

  #startLiteral(word: string): boolean {
    this.#literal = word;
    this.#literalAt = 1;
    this.#state = S.Lit;
    return true;
  }

  #step(c: number, text: string, i: number): boolean {
    switch (this.#state) {
      case S.Value:
        return isSpace(c) || this.#startValue(c, text, i);
      case S.FirstOrEnd:
        if (isSpace(c)) return true;
        if (c === 0x5d) return this.#close(text, i), true;
        return this.#startValue(c, text, i);
      case S.KeyOrEnd:
      case S.Key:
        if (isSpace(c)) return true;
        if (c === 0x7d && this.#state === S.KeyOrEnd) return this.#close(text, i), true;
        if (c !== 0x22) return false;
        this.#stringIsKey = true;
        this.#state = S.Str;
        return true;
      case S.Colon:
        if (isSpace(c)) return true;
        if (c !== 0x3a) return false;
        this.#state = S.Value;
        return true;
      case S.After:
        if (isSpace(c)) return true;
        if (this.#depth === 0) return false;
        if (c === 0x2c) {
          this.#state = this.#isObject() ? S.Key : S.Value;
          return true;
        }
        if (c === (this.#isObject() ? 0x7d : 0x5d)) return this.#close(text, i), true;
        return false;
      case S.Str:
        if (c === 0x22) this.#state = this.#stringIsKey ? S.Colon : S.After;
        else if (c === 0x5c) this.#state = S.Esc;
        else if (c < 0x20) return false;
        return true;
      case S.Esc:
        if (c === 0x75) {
          this.#hexLeft = 4;
          this.#state = S.Hex;
          return true;
        }
        this.#state = S.Str;
        // " \ / b f n r t
        return c === 0x22 || c === 0x5c || c === 0x2f || c === 0x62 || c === 0x66 || c === 0x6e || c === 0x72 || c === 0x74;
      case S.Hex:
        if (!isHex(c)) return false;
        if (--this.#hexLeft === 0) this.#state = S.Str;
        return true;
      case S.Lit:
        if (c !== this.#literal.charCodeAt(this.#literalAt)) return false;
        if (++this.#literalAt === this.#literal.length) this.#state = S.After;
        return true;
      case S.NumMinus:
        if (c === 0x30) this.#state = S.NumZero;
        else if (isDigit(c)) this.#state = S.NumInt;
        else return false;
        return true;
      case S.NumZero:
      case S.NumInt:
        if (isDigit(c) && this.#state === S.NumInt) return true;
        if (c === 0x2e) return (this.#state = S.NumDot), true;
        if (c === 0x65 || c === 0x45) return (this.#state = S.NumE), true;
        this.#state = S.After;
        return this.#step(c, text, i);
      case S.NumDot:
        if (!isDigit(c)) return false;
        this.#state = S.NumFrac;
        return true;
      case S.NumFrac:
        if (isDigit(c)) return true;
        if (c === 0x65 || c === 0x45) return (this.#state = S.NumE), true;
        this.#state = S.After;
        return this.#step(c, text, i);
      case S.NumE:
        if (c === 0x2b || c === 0x2d) return (this.#state = S.NumESign), true;
        if (!isDigit(c)) return false;
        this.#state = S.NumExp;
        return true;
      case S.NumESign:
        if (!isDigit(c)) return false;
        this.#state = S.NumExp;
        return true;
      case S.NumExp:
        if (isDigit(c)) return true;
        this.#state = S.After;
        return this.#step(c, text, i);
    }
  }
}

/**
 * Parses JSON text with the nesting budget: malformed text is null, never an exception.
 * `pruned` says that containers past the budget were read as `[]`.
 */
export function parseJsonWithBudget(text: string, budget = MAX_PARSE_DEPTH): { value: unknown; pruned: boolean } | null {
  // Most bodies are shallow: a quick count of their nesting lets JSON.parse (which agrees with
  // the scanner on validity) read them directly, and only a body that may be deep is scanned.
  if (nestsWithin(text, budget)) {
    try {
      return { value: JSON.parse(text) as unknown, pruned: false };
    } catch {
      return null;
    }
  }
  const scanner = new JsonScanner(true, budget);
  scanner.push(text);
  const kept = scanner.end();
  if (kept === null) return null;
  const pruned = scanner.maxDepth > budget;
  return { value: JSON.parse(pruned ? kept : text) as unknown, pruned };
}

/**
 * True when JSON.parse, reading `text`, never has more than `budget` containers open: the
 * brackets outside strings are counted as JSON reads them, up to the first place the text
 * cannot be JSON (where JSON.parse stops). False when a container opens past the budget.
 * String bodies are skipped with indexOf, so this costs a small part of a full scan.
 */
export function nestsWithin(text: string, budget: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // To the closing quote: one preceded by an even number of backslashes.
      let end = i;
      for (;;) {
        end = text.indexOf('"', end + 1);
        if (end === -1) return true; // an unterminated string: JSON.parse fails within it
        let backslashes = 0;
        while (text.charCodeAt(end - 1 - backslashes) === 0x5c) backslashes++;
        if ((backslashes & 1) === 0) break;
      }
      i = end;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > budget) return false;
    } else if (c === 0x5d || c === 0x7d) {
      if (--depth < 0) return true; // a close without an open: JSON.parse fails here
    }
  }
  return true;
}
