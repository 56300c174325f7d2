// PostgreSQL array literals built in one pass, for the analyzer's flat arrays of thousands of
// elements and the events statement's short columns: node-postgres prepares and escapes each element of an array parameter on its own,
// which measured more of the analyzer's server time than building the statement's rows
// (docs/benchmarks.md, Findings). PostgreSQL parses the literal as the parameter's declared type.

// Unquoted, PostgreSQL's array input reads an empty element as missing, NULL (any case) as null,
// drops white space around an element (\s covers every space it knows, and more), and treats
// quotes, backslashes, braces and the delimiter as syntax.
const NEEDS_QUOTES = /^$|^null$|[\s"\\{},]/i;

/**
 * A text as an element of an array literal (for `plain`), reading back as itself: quoted and
 * escaped only when array syntax needs it, so a literal of ids and names is smaller to send and
 * to parse (the analyzer's storing statement, which encodes each distinct text once per batch).
 */
export function textElement(value: string): string {
  return NEEDS_QUOTES.test(value) ? quoted(value) : value;
}

/** Inside double quotes only quotes and backslashes are syntax: each escaped with a backslash. */
function quoted(value: string): string {
  return `"${value.replace(/["\\]/g, '\\$&')}"`;
}

/** A one-dimensional array literal, element by element. */
export class ArrayLiteral {
  private readonly parts: string[] = [];

  /** A text element, quoted: any text (quotes, backslashes, braces, commas, the word NULL) reads back as itself. */
  text(value: string | null): void {
    this.parts.push(value === null ? 'NULL' : quoted(value));
  }

  /** An element whose text needs no quoting: a number, t or f, an ISO timestamp. */
  plain(value: string): void {
    this.parts.push(value);
  }

  toString(): string {
    return `{${this.parts.join(',')}}`;
  }
}
