// What the incremental walk keeps of a journey between passes (migration 0030, `state`): enough
// to go on from the last event walked without reading the earlier ones again. References (event
// ids, services, step names: what the events table keeps in clear) and keyed hashes, never a
// payload value: a payload text or a change's field path is kept as an HMAC under the keyring's
// analysis-state subkey, so a stored state tells nothing about a low-entropy value to someone
// holding a dump. A state walked under another key, or for another expectation, is not used:
// the journey is walked again from its first event.

import { createHash, createHmac } from 'node:crypto';
import { requireSubkey, type Keyring } from '../crypto/keyring.ts';
import type { FindingStep, JourneyFinding } from './analyze.ts';
import type { Expectation } from './expectation-input.ts';

/** Keyed hash of a text the state keeps instead of it. */
export type Hasher = (text: string) => string;

/** The first recording of a step (service, name, operation), for the duplicates. */
export interface FirstStep {
  id: string;
  service: string;
  name: string;
  operation: string;
  hasError: boolean;
  /** Keyed hashes of the stored input and output texts (null: not stored). */
  input: string | null;
  output: string | null;
}

export interface WalkState {
  /** The key the hashes were made under. */
  keyId: string;
  /** The expectation the walk followed (expectationFingerprint), null for none. */
  expectation: string | null;
  /** The last event walked that stored a payload: the next hand-off leaves from it. */
  carried: { id: string; receivedAt: string } | null;
  /** Keyed hashes of every change key counted (all kinds, at most MAX_CHANGED_PATHS), first seen first. */
  changeKeys: string[];
  steps: FirstStep[];
  /** Lost, changed, duplicated and failed findings so far, in the list's order, at most MAX_FINDINGS_PER_JOURNEY. */
  findings: JourneyFinding[];
  last: { step: FindingStep; timeMs: number } | null;
  /** The first event named as the expectation's final step. */
  final: FindingStep | null;
  /** Names of the expectation's steps seen so far. */
  seenSteps: string[];
  /** The first gap between two events over the expectation's longest. */
  gap: { step: FindingStep; from: FindingStep } | null;
}

export function emptyWalkState(keyId: string, expectation: string | null): WalkState {
  return { keyId, expectation, carried: null, changeKeys: [], steps: [], findings: [], last: null, final: null, seenSteps: [], gap: null };
}

/**
 * What of an expectation the walk depends on (its steps, final step and longest gap; the deadline
 * is applied at each pass). The expectation is stored in clear, so a plain digest will do.
 */
export function expectationFingerprint(expectation: Expectation | null): string | null {
  if (expectation === null) return null;
  const walked = { steps: expectation.steps.map((step) => step.name), finalStep: expectation.finalStep, maxGapSeconds: expectation.maxGapSeconds };
  return createHash('sha256').update(JSON.stringify(walked)).digest('base64url').slice(0, 22);
}

/** Hashes of texts under the current analysis-state key: 96 bits, ample for telling texts of one journey apart. */
export function stateHasher(keyring: Keyring): { keyId: string; hash: Hasher } {
  const { keyId, key } = requireSubkey(keyring, 'analysisState', 'current');
  return { keyId, hash: (text) => createHmac('sha256', key).update(text, 'utf8').digest('base64url').slice(0, 16) };
}
