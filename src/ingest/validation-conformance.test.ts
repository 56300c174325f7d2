// Every wire conformance case (event-protocol 11) run through the pure validation pieces: the
// per-event refusals of steps 1–2 of 2.7 must match code and detail paths exactly; every
// other sent or setup envelope must pass them. Where a case pins a value these pieces compute
// (timestamp, duration, diff, mask, canonical form), that value is checked too. The HTTP
// runner covers the rest of the pipeline.

import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { maskAliasValue } from '../protocol/alias-mask.ts';
import { canonicalEventJson } from '../protocol/canonical-json.ts';
import { expandCase, findUnknownCaseKeys, newRunToken } from './conformance-expand.ts';
import { validateEnvelope } from '../protocol/envelope.ts';
import type { ValidEvent } from '../protocol/envelope.ts';
import { DEFAULT_MAX_EVENT_PAYLOAD_BYTES, MAX_BATCH_EVENTS } from '../protocol/limits.ts';
import { computePayloadDiff } from '../protocol/payload-diff.ts';
import { findUnstorable, hasUnpairedSurrogate } from '../protocol/storability.ts';
import { checkStructuralLimits } from '../protocol/structural-limits.ts';
import { formatTimestamp } from '../protocol/timestamps.ts';

const WIRE_DIR = new URL('../../../shared/conformance/wire/', import.meta.url);

// Per-event codes these pieces decide (steps 1–2 of 2.7); unstorable_payload is step 6.
const VALIDATION_CODES = new Set([
  'invalid_event',
  'unsupported_protocol_version',
  'max_depth_exceeded',
  'max_keys_exceeded',
  'max_string_length_exceeded',
  'payload_too_large',
]);

type Json = any; // case documents are free-form JSON; each access below is checked by expect()

interface Verdict {
  code: string | null;
  paths: { path: string }[];
  event?: ValidEvent;
}

/** Steps 1 and 2 of 2.7 in order, as the pipeline runs them. */
function verdictOf(envelope: unknown): Verdict {
  const refusal = checkStructuralLimits(envelope, DEFAULT_MAX_EVENT_PAYLOAD_BYTES);
  if (refusal !== null) return { code: refusal.code, paths: pathsOf(refusal.details ?? []) };
  const result = validateEnvelope(envelope);
  if (!result.ok) return { code: result.code, paths: pathsOf(result.details) };
  return { code: null, paths: [], event: result.event };
}

function pathsOf(details: readonly { path: string }[]): { path: string }[] {
  return details.map(({ path }) => ({ path }));
}

/** Step 6 on what every capture mode stores as sent: entity.id and alias values only lose U+0000 rights. */
function unstorableNeverCaptured(event: ValidEvent): string | null {
  const { input: _i, output: _o, error: _e, runtime: _r, deployment: _d, metadata: _m, aliases, entity, ...plain } = event;
  if (hasUnpairedSurrogate(entity.id)) return 'event.entity.id';
  for (const [type, value] of Object.entries(aliases ?? {})) {
    if (hasUnpairedSurrogate(value)) return `event.aliases.${type}`;
  }
  return findUnstorable({ ...plain, entityType: entity.type, aliasTypes: Object.keys(aliases ?? {}) }, 'event');
}

function matchesExpected(actual: string, expected: Json): boolean {
  if (typeof expected === 'string') return actual === expected;
  return new RegExp(expected.$matches as string).test(actual);
}

const files = readdirSync(WIRE_DIR).filter((name) => name.endsWith('.json')).sort();

it('finds the wire cases (46 per 11.1)', () => {
  expect(files.length).toBeGreaterThanOrEqual(46);
});

for (const file of files) {
  describe(`wire/${file}`, () => {
    const raw: Json = JSON.parse(readFileSync(new URL(file, WIRE_DIR), 'utf8'));
    const doc: Json = expandCase(raw, { run: newRunToken() });
    const existing: Json[] = [...(doc.setup?.existing ?? []), ...(doc.setup?.otherEnvironment ?? [])];
    const sent: Json = doc.send.events;
    const expected: Json = doc.expect;

    it('is a well-formed wire case', () => {
      expect(findUnknownCaseKeys(raw)).toEqual([]);
      expect(raw.layer).toBe('wire');
      expect(JSON.stringify(doc)).not.toContain('{{run}}');
    });

    existing.forEach((envelope, i) => {
      it(`setup envelope ${i} passes validation`, () => {
        expect(verdictOf(envelope).code).toBeNull();
      });
    });

    if (expected.request !== undefined) {
      it(`is refused as a whole request: ${expected.request.code}`, () => {
        if (expected.request.code === 'payload_too_large') expect(sent.length).toBeGreaterThan(MAX_BATCH_EVENTS);
        else if (expected.request.code === 'invalid_event') expect(Array.isArray(sent)).toBe(false);
        else throw new Error(`unexpected request-level code ${expected.request.code}`);
      });
      return;
    }

    it('expects one result per sent envelope', () => {
      expect(Array.isArray(sent)).toBe(true);
      expect(expected.results).toHaveLength(sent.length);
      expect(sent.length).toBeLessThanOrEqual(MAX_BATCH_EVENTS);
    });

    (sent as Json[]).forEach((envelope, i) => {
      const result: Json = expected.results[i];
      const code: string | undefined = result.error?.code;
      it(`event ${i}: ${result.status}${code === undefined ? '' : ` ${code}`}`, () => {
        const verdict = verdictOf(envelope);
        if (result.status === 'rejected' && code !== undefined && VALIDATION_CODES.has(code)) {
          expect(verdict.code).toBe(code);
          if (result.error.details !== undefined) expect(verdict.paths).toEqual(result.error.details);
          return;
        }
        // Accepted, or refused by a later step: steps 1–2 must let it through.
        expect(verdict).toMatchObject({ code: null, paths: [] });
        const event = verdict.event as ValidEvent;
        if (code === 'unstorable_payload') {
          expect(findUnstorable(envelope.event, 'event')).not.toBeNull();
          return;
        }
        if (result.status === 'accepted') expect(unstorableNeverCaptured(event)).toBeNull();
        checkPinnedValues(event, result.stored?.event);
        checkIdempotency(event, result, [...existing, ...sent.slice(0, i)]);
        checkAliasDisplay(result.stored?.journey?.aliases, [...existing, ...sent.slice(0, i + 1)]);
      });
    });
  });
}

/** Values of stored.event that come straight from these pieces. */
function checkPinnedValues(event: ValidEvent, stored: Json): void {
  if (stored === undefined) return;
  if (stored.eventTimestamp !== undefined) expect(formatTimestamp(event.timestampMs)).toBe(stored.eventTimestamp);
  if (stored.durationMs !== undefined) expect(event.durationMs).toBe(stored.durationMs);
  // The diff runs on the stored (captured, redacted) payloads, which the case states.
  if (stored.payloadDiff && stored.inputPayload !== undefined && stored.outputPayload !== undefined) {
    expect(computePayloadDiff(stored.inputPayload, stored.outputPayload)).toEqual(stored.payloadDiff);
  }
}

/** A duplicate hashes like the earlier event of its id; a conflict does not (section 7). */
function checkIdempotency(event: ValidEvent, result: Json, earlier: Json[]): void {
  const isDuplicate = result.duplicate === true;
  const isConflict = result.error?.code === 'event_id_conflict';
  if (!isDuplicate && !isConflict) return;
  const first = earlier.find((envelope) => envelope.event?.id === event.id);
  expect(first).toBeDefined();
  const firstEvent = verdictOf(first).event as ValidEvent;
  expect(canonicalEventJson(event) === canonicalEventJson(firstEvent)).toBe(isDuplicate);
}

/** Masked aliases read as maskAliasValue of the first value stored for the type (4.2, 4.3). */
function checkAliasDisplay(aliases: Json[] | undefined, envelopes: Json[]): void {
  for (const alias of aliases ?? []) {
    const holder = envelopes.find((envelope) => Object.hasOwn(envelope.event?.aliases ?? {}, alias.type));
    expect(holder).toBeDefined();
    const value: string = holder.event.aliases[alias.type];
    const shown = alias.displayable === true ? value : maskAliasValue(value);
    expect(matchesExpected(shown, alias.displayValue)).toBe(true);
  }
}
