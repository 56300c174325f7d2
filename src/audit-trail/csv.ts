// CSV of the audit log (RFC 4180): every cell quoted, quotes doubled, CRLF line ends. A cell a
// spreadsheet would read as a formula (starting with = + - @, or a tab or carriage return that
// some programs skip before one) gets a leading apostrophe, the OWASP "CSV injection" defence.

import type { AuditEntry } from './audit-trail.ts';

const FORMULA_START = /^[=+\-@\t\r]/;

export function csvCell(value: string | null): string {
  const text = value ?? '';
  const safe = FORMULA_START.test(text) ? `'${text}` : text;
  return `"${safe.replace(/"/g, '""')}"`;
}

export const CSV_COLUMNS = ['time', 'kind', 'action', 'project', 'actor', 'actor_email', 'actor_key_prefix', 'client_address', 'subject', 'details', 'before', 'after'] as const;

function json(value: Record<string, unknown> | null): string | null {
  return value === null ? null : JSON.stringify(value);
}

export function csvLine(entry: AuditEntry): string {
  const cells = [
    entry.time,
    entry.kind,
    entry.action,
    entry.project?.slug ?? null,
    entry.actor.kind,
    entry.actor.email,
    entry.actor.keyPrefix,
    entry.actor.clientAddress,
    entry.subject,
    json(entry.details),
    json(entry.before),
    json(entry.after),
  ];
  return cells.map(csvCell).join(',') + '\r\n';
}

export function csvHeader(): string {
  return CSV_COLUMNS.map(csvCell).join(',') + '\r\n';
}
