// Opaque keyset cursors of the list routes (interface spec 4, "Pagination"). A cursor holds a
// position only, never a filter, so a page always filters by what its own request says. It is
// base64url of a small JSON object, tagged with the order it belongs to: a journey cursor (search
// and journey list share one order) cannot be replayed on a journey's event list.

import { isWellFormedText } from '../protocol/identifiers.ts';
import { decodeTaggedCursor, encodeTaggedCursor } from '../http/cursor-codec.ts';
import { errors } from '../http/errors.ts';
import { MAX_STORED_MICROS, MIN_STORED_MICROS } from './micros.ts';

/** Position in the journey order: lastEventAt desc, journeyId desc. */
export interface JourneyPosition {
  /** lastEventAt in epoch microseconds. */
  lastEventUs: bigint;
  journeyId: string;
}

/** Position in the timeline order: eventTimestamp, receivedAt, event id. */
export interface TimelinePosition {
  timestampUs: bigint;
  receivedAtUs: bigint;
  eventId: string;
}

/** Longest cursor text read; ours stay well under it (two instants and a 128-code-point id). */
const MAX_CURSOR_LENGTH = 2048;
/** Journey and event ids are at most 128 code points (event protocol 2.2). */
const MAX_ID_CODE_POINTS = 128;
const MICROS = /^-?[0-9]{1,19}$/;

function micros(value: unknown): bigint {
  if (typeof value !== 'string' || !MICROS.test(value)) throw errors.invalidCursor();
  const us = BigInt(value);
  if (us < MIN_STORED_MICROS || us > MAX_STORED_MICROS) throw errors.invalidCursor();
  return us;
}

/** An id the database would accept and the routes could have written: else invalid_cursor. */
function id(value: unknown): string {
  if (typeof value !== 'string' || value.length === 0 || value.includes('\u0000') || !isWellFormedText(value)) {
    throw errors.invalidCursor();
  }
  if ([...value].length > MAX_ID_CODE_POINTS) throw errors.invalidCursor();
  return value;
}

export function encodeJourneyCursor(position: JourneyPosition): string {
  return encodeTaggedCursor({ k: 'j', t: position.lastEventUs.toString(), id: position.journeyId });
}

/** null for an omitted or empty cursor (the first page). */
export function decodeJourneyCursor(text: string | undefined): JourneyPosition | null {
  if (text === undefined || text === '') return null;
  const record = decodeTaggedCursor(text, 'j', ['id', 'k', 't'], MAX_CURSOR_LENGTH);
  return { lastEventUs: micros(record.t), journeyId: id(record.id) };
}

export function encodeTimelineCursor(position: TimelinePosition): string {
  return encodeTaggedCursor({ k: 'e', t: position.timestampUs.toString(), r: position.receivedAtUs.toString(), id: position.eventId });
}

export function decodeTimelineCursor(text: string | undefined): TimelinePosition | null {
  if (text === undefined || text === '') return null;
  const record = decodeTaggedCursor(text, 'e', ['id', 'k', 'r', 't'], MAX_CURSOR_LENGTH);
  return { timestampUs: micros(record.t), receivedAtUs: micros(record.r), eventId: id(record.id) };
}
