// An event's detail and diff, read once for a short while: the journey page asks for the
// neighbours of the selected event ahead of time, so "j" shows the next one without waiting for
// the server. Entries are dropped after FRESH_MS so an erasure or a deletion shows on the next look.
import { request, type DiffRow, type EventDetail } from '../api.ts';

export type EventDiff = { rows: DiffRow[]; truncated: boolean };

export interface EventRead {
  detail: Promise<EventDetail>;
  diff: Promise<EventDiff | null>;
  /** The answers once they arrived, for drawing them without a wait. */
  ready: { detail?: EventDetail; diff?: EventDiff | null };
}

/** How long a read is reused, in milliseconds. */
const FRESH_MS = 15_000;
/** Reads kept: the selected event, its neighbours and the last few visited. */
const KEEP = 16;

const reads = new Map<string, { at: number; read: EventRead }>();

export function readEvent(projectId: string, eventId: string): EventRead {
  const key = `${projectId}\u0000${eventId}`;
  const found = reads.get(key);
  if (found && Date.now() - found.at < FRESH_MS) return found.read;
  const url = `/v1/events/${encodeURIComponent(eventId)}`;
  const ready: EventRead['ready'] = {};
  const detail = request<EventDetail>(url, { projectId });
  const diff = detail.then((answer) => (answer.hasInput && answer.hasOutput ? request<EventDiff>(`${url}/diff`, { projectId }) : null));
  const read = { detail, diff, ready };
  detail.then((answer) => (ready.detail = answer), () => undefined);
  diff.then((answer) => (ready.diff = answer), () => undefined);
  // A failed read is not kept: the next look asks again.
  Promise.all([detail, diff]).catch(() => {
    if (reads.get(key)?.read === read) reads.delete(key);
  });
  reads.delete(key);
  reads.set(key, { at: Date.now(), read });
  while (reads.size > KEEP) reads.delete(reads.keys().next().value!);
  return read;
}
