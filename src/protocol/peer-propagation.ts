// The propagation carriers of the peer protocol (Wayscribe, event protocol 0.1's origin), which
// every jtrace SDK also reads so that a service moving to jtrace joins journeys started by
// services still on the peer SDK. jtrace's own carriers stay the ones SDKs inject; the peer's are
// written only when the host asks for them. docs/sdk.md ("Mixed fleets") states the same rules.

/** HTTP header names, compared without case; of a repeated header the first value is read. */
export const PEER_HEADERS = Object.freeze({
  journeyId: 'x-wayscribe-journey-id',
  entityType: 'x-wayscribe-entity-type',
  entityId: 'x-wayscribe-entity-id',
});

/** Queue message attribute names (SQS, SNS), compared with case; a value is a string or `{ DataType, StringValue }`. */
export const PEER_ATTRIBUTES = Object.freeze({
  journeyId: 'wayscribeJourneyId',
  entityType: 'wayscribeEntityType',
  entityId: 'wayscribeEntityId',
});

/** The JSON envelope: `{ "_wayscribe": { journeyId, entityType?, entityId? }, "data": payload }`. */
export const PEER_ENVELOPE_KEY = '_wayscribe';
export const PEER_ENVELOPE_DATA_KEY = 'data';
export const PEER_ENVELOPE_FIELDS = Object.freeze({ journeyId: 'journeyId', entityType: 'entityType', entityId: 'entityId' });

/**
 * A peer value is taken as it is (no percent-decoding) when it is 1–256 characters of this set;
 * anything else is treated as absent. Written out, not `\w`, so every language reads it alike.
 */
export const PEER_VALUE_PATTERN = /^[A-Za-z0-9_.:@=+-]{1,256}$/;
/** A peer journey id must also start with this prefix (and fit jtrace's journeyId length). */
export const PEER_JOURNEY_PREFIX = 'jrn_';

export interface PeerFields {
  journeyId: string | undefined;
  entityType: string | undefined;
  entityId: string | undefined;
}

export interface PeerContext {
  journeyId: string;
  /** Present only when the peer sent both a usable entity type and a usable entity id. */
  entity?: { type: string; id: string };
}

/** True when a value may be read from, or written to, a peer carrier. */
export function isPeerValue(value: unknown): value is string {
  return typeof value === 'string' && PEER_VALUE_PATTERN.test(value);
}

/**
 * The journey a peer carrier holds, or null. `maxJourneyId`, `maxType` and `maxId` are jtrace's
 * own field lengths (code points; peer values are ASCII, so characters): a value the server would
 * refuse on every event is not taken up.
 */
export function readPeerContext(fields: PeerFields, maxJourneyId: number, maxType: number, maxId: number): PeerContext | null {
  const { journeyId, entityType, entityId } = fields;
  if (!isPeerValue(journeyId) || !journeyId.startsWith(PEER_JOURNEY_PREFIX) || journeyId.length > maxJourneyId) return null;
  if (isPeerValue(entityType) && isPeerValue(entityId) && entityType.length <= maxType && entityId.length <= maxId) {
    return { journeyId, entity: { type: entityType, id: entityId } };
  }
  return { journeyId };
}
