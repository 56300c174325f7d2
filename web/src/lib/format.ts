// Display helpers shared by every page.
import { escapeBidiControls } from './bidi.ts';
import { zonedTime } from './time-zone.ts';

/**
 * A duration in the largest sensible unit. Each branch rounds the whole duration to its smallest
 * unit first and only then splits it, so a carry moves up ("10 min", never "9 min 60 s"); a zero
 * remainder is left out.
 */
export function formatDuration(ms: number | null): string {
  if (ms === null) return '—';
  if (Math.round(ms) < 1000) return `${Math.round(ms)} ms`;
  const hundredths = Math.round(ms / 10);
  if (hundredths < 1000) return `${(hundredths / 100).toFixed(2)} s`;
  const tenths = Math.round(ms / 100);
  if (tenths < 600) return `${(tenths / 10).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 3600) return twoUnits(Math.floor(seconds / 60), 'min', seconds % 60, 's');
  const minutes = Math.round(ms / 60_000);
  if (minutes < 1440) return twoUnits(Math.floor(minutes / 60), 'h', minutes % 60, 'min');
  const hours = Math.round(ms / 3_600_000);
  return twoUnits(Math.floor(hours / 24), 'd', hours % 24, 'h');
}

function twoUnits(major: number, majorUnit: string, minor: number, minorUnit: string): string {
  return minor === 0 ? `${major} ${majorUnit}` : `${major} ${majorUnit} ${minor} ${minorUnit}`;
}

/** A date and time to the second, in the zone chosen with the UTC switch. */
export function formatTime(iso: string): string {
  return zonedTime(iso);
}

/** The same with milliseconds: steps of a journey are often milliseconds apart. */
export function formatPreciseTime(iso: string): string {
  return zonedTime(iso, true);
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
  return escapeBidiControls(JSON.stringify(value, null, 2) ?? String(value));
}

/** A short one-line rendering of a value for tables. */
export function formatValue(value: unknown): string {
  if (value === undefined) return '(missing)';
  if (value === null) return 'null';
  if (typeof value === 'string') return escapeBidiControls(JSON.stringify(value));
  const text = escapeBidiControls(JSON.stringify(value) ?? String(value));
  return text.length > 160 ? text.slice(0, 157) + '…' : text;
}

/** An entity id as read; null when no configured key opens it (after a key was lost or rotated away). */
export function entityIdText(id: string | null): string {
  return id ?? '(unreadable id)';
}

export function journeyTitle(journey: { label: string | null; entity: { type: string; id: string | null } }): string {
  return journey.label ?? `${journey.entity.type} ${entityIdText(journey.entity.id)}`;
}
