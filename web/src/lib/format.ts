// Display helpers shared by every page.

export function formatDuration(ms: number | null): string {
  if (ms === null) return '—';
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  if (ms < 3_600_000) return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
  if (ms < 86_400_000) return `${Math.floor(ms / 3_600_000)} h ${Math.round((ms % 3_600_000) / 60_000)} min`;
  return `${Math.floor(ms / 86_400_000)} d ${Math.round((ms % 86_400_000) / 3_600_000)} h`;
}

const dateTime = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});

export function formatTime(iso: string): string {
  return dateTime.format(new Date(iso));
}

/** "3 min ago" style, for lists. */
export function formatAgo(iso: string, now = Date.now()): string {
  const seconds = Math.round((now - Date.parse(iso)) / 1000);
  if (seconds < 5) return 'just now';
  if (seconds < 60) return `${seconds} s ago`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h ago`;
  return `${Math.floor(seconds / 86_400)} d ago`;
}

export function formatJson(value: unknown): string {
  if (value === undefined) return '(missing)';
  return JSON.stringify(value, null, 2) ?? String(value);
}

/** A short one-line rendering of a value for tables. */
export function formatValue(value: unknown): string {
  if (value === undefined) return '(missing)';
  if (value === null) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 160 ? text.slice(0, 157) + '…' : text;
}

/** An entity id as read; null when no configured key opens it (after a key was lost or rotated away). */
export function entityIdText(id: string | null): string {
  return id ?? '(unreadable id)';
}

export function journeyTitle(journey: { label: string | null; entity: { type: string; id: string | null } }): string {
  return journey.label ?? `${journey.entity.type} ${entityIdText(journey.entity.id)}`;
}
