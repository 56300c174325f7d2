import { describe, expect, it } from 'vitest';
import {
  DEFAULT_MAX_EVENT_PAYLOAD_BYTES,
  EVENT_FIELD_LENGTHS,
  MAX_BATCH_EVENTS,
  MAX_DEPTH,
  MAX_DIFF_CHANGES,
  MAX_DIFF_DEPTH,
  MAX_DURATION_MS,
  MAX_MAX_EVENT_PAYLOAD_BYTES,
  MAX_STRING_UNITS,
  MAX_WIDTH,
  MIN_MAX_EVENT_PAYLOAD_BYTES,
  requestBodyLimitBytes,
} from './limits.ts';

describe('limits (event-protocol 9.1)', () => {
  it('has the protocol values', () => {
    expect(MAX_BATCH_EVENTS).toBe(100);
    expect(MAX_DEPTH).toBe(32);
    expect(MAX_WIDTH).toBe(1000);
    expect(MAX_STRING_UNITS).toBe(65_536);
    expect(DEFAULT_MAX_EVENT_PAYLOAD_BYTES).toBe(262_144);
    expect([MIN_MAX_EVENT_PAYLOAD_BYTES, MAX_MAX_EVENT_PAYLOAD_BYTES]).toEqual([1024, 1_048_576]);
    expect(MAX_DURATION_MS).toBe(2 ** 31 - 1);
    expect([MAX_DIFF_CHANGES, MAX_DIFF_DEPTH]).toEqual([500, 32]);
    expect(EVENT_FIELD_LENGTHS.journeyLabel).toEqual({ min: 1, max: 200 });
  });

  it('derives the request body limit: 100 × per-event limit + 65,536', () => {
    expect(requestBodyLimitBytes(DEFAULT_MAX_EVENT_PAYLOAD_BYTES)).toBe(26_279_936);
    expect(requestBodyLimitBytes(1024)).toBe(167_936);
  });

  it('freezes the field ranges', () => {
    expect(Object.isFrozen(EVENT_FIELD_LENGTHS)).toBe(true);
    expect(Object.isFrozen(EVENT_FIELD_LENGTHS.id)).toBe(true);
  });
});
