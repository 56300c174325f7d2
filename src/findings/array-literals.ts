// PostgreSQL array literals built in one pass, for the analyzer's arrays of thousands of
// elements: node-postgres prepares and escapes each element of an array parameter on its own,
// which measured more of the analyzer's server time than building the statement's rows
// (docs/benchmarks.md, Findings). PostgreSQL parses the literal as the parameter's declared type.

// Unquoted, PostgreSQL's array input reads an empty element as missing, NULL (any case) as null,
// drops white space around an element (\s covers every space it knows, and more), and treats
// quotes, backslashes, braces and the delimiter as syntax.
const NEEDS_QUOTES = /^$|^null$|[\s"\\{},]/i;

/** A text as an element of an array literal: quoted and escaped only when it has to be. */
export function textElement(value: string): string {
  return NEEDS_QUOTES.test(value) ? `"${value.replace(/["\\]/g, '\\$&')}"` : value;
}

/** A one-dimensional array literal, element by element. */
export class ArrayLiteral {
  private readonly parts: string[] = [];

  /**
   * A text element: any text (quotes, backslashes, braces, commas, the word NULL) reads back as
   * itself. Quoted only when PostgreSQL would read it otherwise unquoted: a literal nested in
   * another (one per journey in a text[]) is escaped again, once per quote it holds.
   */
  text(value: string | null): void {
    this.parts.push(value === null ? 'NULL' : textElement(value));
  }

  /** An element whose text needs no quoting: a number, t or f, an ISO timestamp. */
  plain(value: string): void {
    this.parts.push(value);
  }

  toString(): string {
    return `{${this.parts.join(',')}}`;
  }
}
