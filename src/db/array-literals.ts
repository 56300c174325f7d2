// PostgreSQL array literals built in one pass, for the analyzer's flat arrays of thousands of
// elements and the events statement's short columns: node-postgres prepares and escapes each element of an array parameter on its own,
// which measured more of the analyzer's server time than building the statement's rows
// (docs/benchmarks.md, Findings). PostgreSQL parses the literal as the parameter's declared type.

/** A one-dimensional array literal, element by element. */
export class ArrayLiteral {
  private readonly parts: string[] = [];

  /** A text element, quoted: any text (quotes, backslashes, braces, commas, the word NULL) reads back as itself. */
  text(value: string | null): void {
    this.parts.push(value === null ? 'NULL' : `"${value.replace(/["\\]/g, '\\$&')}"`);
  }

  /** An element whose text needs no quoting: a number, t or f, an ISO timestamp. */
  plain(value: string): void {
    this.parts.push(value);
  }

  toString(): string {
    return `{${this.parts.join(',')}}`;
  }
}
