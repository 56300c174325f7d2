/** The one timestamp form of every response: `YYYY-MM-DDThh:mm:ss.sssZ` (UTC, milliseconds). */
export function formatTimestamp(ms: number): string {
  return new Date(ms).toISOString();
}

export function formatNullableTimestamp(value: Date | null | undefined): string | null {
  return value ? formatTimestamp(value.getTime()) : null;
}
