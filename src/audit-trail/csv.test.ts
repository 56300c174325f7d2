import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { csvCell } from './csv.ts';

/** An RFC 4180 reader of one quoted cell, to read back what csvCell wrote. */
function readCell(cell: string): string {
  expect(cell.startsWith('"') && cell.endsWith('"')).toBe(true);
  const inner = cell.slice(1, -1);
  expect(inner.replace(/""/g, '')).not.toContain('"');
  return inner.replace(/""/g, '"');
}

describe('csvCell', () => {
  it('quotes every cell and reads back exactly, a formula start behind an apostrophe', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme-composite' }), (text) => {
        const back = readCell(csvCell(text));
        if (/^[=+\-@\t\r]/.test(text)) expect(back).toBe(`'${text}`);
        else expect(back).toBe(text);
      }),
    );
  });

  it('defuses the formula starts spreadsheets act on', () => {
    expect(csvCell('=HYPERLINK("http://x")')).toBe(`"'=HYPERLINK(""http://x"")"`);
    for (const start of ['+', '-', '@', '\t', '\r']) expect(csvCell(`${start}1`)).toBe(`"'${start}1"`);
    expect(csvCell('a,b\r\nc')).toBe('"a,b\r\nc"');
    expect(csvCell(null)).toBe('""');
  });
});
