// The results export (RFC 4180): every cell quoted, quotes doubled, CRLF line ends; a cell a
// spreadsheet would read as a formula gets a leading apostrophe (journey ids are the client's text).

import type { ResultView } from './batches.ts';

const FORMULA_START = /^[=+\-@\t\r]/;

function cell(value: string | null): string {
  const text = value ?? '';
  return `"${(FORMULA_START.test(text) ? `'${text}` : text).replace(/"/g, '""')}"`;
}

export function resultsCsv(results: readonly ResultView[]): string {
  const lines = results.map((r) => [r.journeyId, r.verdict, r.replayId, r.error === null ? null : `${r.error.code}: ${r.error.message}`].map(cell).join(','));
  return ['journeyId,verdict,replayId,error', ...lines].map((line) => `${line}\r\n`).join('');
}
