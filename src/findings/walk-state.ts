// What the incremental walk keeps of a journey between passes (migration 0030, `state`): enough
// to go on from the last event walked without reading the earlier ones again. References (event
// ids, services, step names: what the events table keeps in clear) and keyed hashes, never a
// payload value: a payload text or a change's field path is kept as an HMAC under the keyring's
// analysis-state subkey, so a stored state tells nothing about a low-entropy value to someone
// holding a dump. A state walked under another key, or for another expectation, is not used:
// the journey is walked again from its first event.

import { createHash, createHmac } from 'node:crypto';
import { requireSubkey, type Keyring } from '../crypto/keyring.ts';
import type { FindingKind, FindingStep, JourneyFinding } from './analyze.ts';
import type { Expectation } from './expectation-input.ts';

/** Characters of a kept hash (base64url): 96 bits. */
const HASH_LENGTH = 16;

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

/** Texts up to this length are remembered with their hash: field paths, which recur across journeys. */
const REMEMBERED_TEXT_LENGTH = 512;
/** Hashes remembered at most; the memory starts over when full. */
const REMEMBERED_HASHES = 8_192;

/**
 * Hashes of texts under the current analysis-state key: 96 bits, ample for telling texts of one
 * journey apart. A journey's walk hashes every change's field path, the same few paths journey
 * after journey, and an HMAC costs about 2 µs (a CPU profile of the analyzer showed HMAC at a fifth
 * of its time), so short texts' hashes are remembered, in this process's memory only.
 */
export function stateHasher(keyring: Keyring): { keyId: string; hash: Hasher } {
  const { keyId, key } = requireSubkey(keyring, 'analysisState', 'current');
  const compute = (text: string) => createHmac('sha256', key).update(text, 'utf8').digest('base64url').slice(0, HASH_LENGTH);
  const remembered = new Map<string, string>();
  return {
    keyId,
    hash: (text) => {
      if (text.length > REMEMBERED_TEXT_LENGTH) return compute(text);
      let hashed = remembered.get(text);
      if (hashed === undefined) {
        hashed = compute(text);
        if (remembered.size >= REMEMBERED_HASHES) remembered.clear();
        remembered.set(text, hashed);
      }
      return hashed;
    },
  };
}

/**
 * The state as stored: arrays instead of objects and each step named once, so a journey's 35
 * findings over four steps are about a kilobyte rather than five (the walk is written with the
 * findings of every journey a batch walks).
 */
export interface EncodedState {
  k: string;
  x: string | null;
  c: [string, string] | null;
  /** Change keys, concatenated (every hash is HASH_LENGTH characters). */
  h: string;
  /** Steps named: [event id, service, name]. */
  r: Array<[string, string, string]>;
  /** Findings: [kind, path, step, in transit (0/1), from], steps by index in `r` (-1: none). */
  f: Array<[string, string | null, number, number, number]>;
  /** First recordings: [step, operation, has error (0/1), input hash, output hash]. */
  s: Array<[number, string, number, string | null, string | null]>;
  l: [number, number] | null;
  e: number;
  n: string[];
  g: [number, number] | null;
}


export function encodeWalkState(state: WalkState): EncodedState {
  const refs: Array<[string, string, string]> = [];
  const places = new Map<string, number>();
  const at = (step: FindingStep | null): number => {
    if (step === null) return -1;
    let place = places.get(step.eventId);
    if (place === undefined) {
      place = refs.push([step.eventId, step.service, step.name]) - 1;
      places.set(step.eventId, place);
    }
    return place;
  };
  return {
    k: state.keyId,
    x: state.expectation,
    c: state.carried === null ? null : [state.carried.id, state.carried.receivedAt],
    h: state.changeKeys.join(''),
    f: state.findings.map((f) => [f.kind, f.path, at(f.step), f.inTransit ? 1 : 0, at(f.from)]),
    s: state.steps.map((s) => [at({ eventId: s.id, service: s.service, name: s.name }), s.operation, s.hasError ? 1 : 0, s.input, s.output]),
    l: state.last === null ? null : [at(state.last.step), state.last.timeMs],
    e: at(state.final),
    n: state.seenSteps,
    g: state.gap === null ? null : [at(state.gap.step), at(state.gap.from)],
    r: refs,
  };
}

export function decodeWalkState(encoded: EncodedState): WalkState {
  const step = (place: number): FindingStep | null => {
    const ref = encoded.r[place];
    return ref === undefined ? null : { eventId: ref[0], service: ref[1], name: ref[2] };
  };
  const changeKeys: string[] = [];
  for (let i = 0; i < encoded.h.length; i += HASH_LENGTH) changeKeys.push(encoded.h.slice(i, i + HASH_LENGTH));
  return {
    keyId: encoded.k,
    expectation: encoded.x,
    carried: encoded.c === null ? null : { id: encoded.c[0], receivedAt: encoded.c[1] },
    changeKeys,
    steps: encoded.s.map(([place, operation, hasError, input, output]) => {
      const ref = step(place)!;
      return { id: ref.eventId, service: ref.service, name: ref.name, operation, hasError: hasError === 1, input, output };
    }),
    findings: encoded.f.map(([kind, path, at, inTransit, from]) => ({ kind: kind as FindingKind, path, step: step(at), inTransit: inTransit === 1, from: step(from) })),
    last: encoded.l === null ? null : { step: step(encoded.l[0])!, timeMs: encoded.l[1] },
    final: step(encoded.e),
    seenSteps: encoded.n,
    gap: encoded.g === null ? null : { step: step(encoded.g[0])!, from: step(encoded.g[1])! },
  };
}
