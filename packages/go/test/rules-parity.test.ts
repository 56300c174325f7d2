// The Go SDK ports the server's redaction walk, rule grammar, error-text masker, capture and
// carriers around the generated data (protocol_gen.go): this runs both on the same inputs (the
// kernel's own test strings and generated hostile text) and fails on any difference. Go strings
// are UTF-8, so text with an unpaired surrogate (which a Go string cannot hold) is left out.
// Skipped, saying why, only when no `go` binary exists, as the go test run is.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toWireValue, truncateString } from '../../node/src/capture.ts';
import { extractHttpContext, injectHttpHeaders } from '../../node/src/propagation.ts';
import type { JourneyContext } from '../../node/src/types.ts';
import { isSecretLookingName, maskCredentialText } from '../../../src/protocol/redaction/mask-error-text.ts';
import { compileRules, isValidRedactionRule } from '../../../src/protocol/redaction/operator-rules.ts';
import { redactValue } from '../../../src/protocol/redaction/redact.ts';
import { findGo, runGo } from './go.ts';

const go = findGo();

/** Whether every string in a JSON-shaped value is well-formed UTF-16 (a Go string can hold it). */
function wellFormed(value: unknown): boolean {
  // With the u flag, \p{Cs} matches only a surrogate that is not half of a pair.
  if (typeof value === 'string') return !/\p{Cs}/u.test(value);
  if (Array.isArray(value)) return value.every(wellFormed);
  if (typeof value === 'object' && value !== null) return Object.entries(value).every(([key, item]) => wellFormed(key) && wellFormed(item));
  return true;
}

/** String literals of the kernel's own tests: the shapes its authors thought of. */
function literalsOf(file: string): string[] {
  const text = readFileSync(new URL(`../../../src/protocol/redaction/${file}`, import.meta.url), 'utf8');
  const found = new Set<string>();
  for (const match of text.matchAll(/'((?:[^'\\\n]|\\.)*)'/g)) {
    try {
      found.add(JSON.parse(`"${(match[1] ?? '').replace(/\\'/g, "'").replace(/"/g, '\\"')}"`) as string);
    } catch {
      // a literal JSON cannot read as it is: not needed
    }
  }
  return [...found];
}

const FRAGMENTS = [
  'password=', 'Password: ', '"api_key":"', "'secret'='", 'DB_PASSWORD=', 'token=', 'nextPageToken=', '?key=', '&key=',
  'Bearer ', 'Basic ', 'Digest username="a", response="', 'eyJhbGciOi', '.eyJzdWIi', '.sig', 'postgres://', 'u:p@', '@',
  'sk_live_', 'ghp_', 'AKIA', 'xoxb-', 'hooks.slack.com/services/T0/B0/', 'discord.com/api/webhooks/12/', 'jtk_',
  '-----BEGIN RSA PRIVATE KEY-----', '-----END RSA PRIVATE KEY-----', '\r\n', '\n', ' ', '\t', '"', "'", '\\"', ':', '=',
  '&', ',', ';', '[REDACTED]', 'Authorization: ', 'Cookie: a=b', 'x-api-key:', 'aB3dE6gH9jK2mN5pQ8rS', '0123456789',
  '[TRUNCATED: 12 characters removed]', 'é', '😀', '\uD800',
];
const fragmentText = fc.array(fc.oneof(fc.constantFrom(...FRAGMENTS), fc.string({ maxLength: 6 })), { maxLength: 14 }).map((parts) => parts.join(''));
const NAMES = ['password', 'DBPassword', 'api_key', 'apiKey', 'secretKey', 'PRIVATEKEY', 'nextPageToken', 'csrfToken', 'authToken', 'sessionCredential', 'key', 'monkey', 'x-api-key', 'SET_COOKIE', 'tokenCount', 'client-secret', 'AccessKey', 'pwd', 'passPhrase'];
const RULES = ['customer.ssn', '*.password', 'items[*].card', '**.x-token', '[*].token', 'a..b', '.a', '**.a.b', 'a.[*]', 'a*b', ' a', 'a.b[*].c', '**', '', 'x[*][*]'];
const KEYS = ['password', 'ssn', 'card', 'x-token', 'X_Token', 'name', 'value', 'key', 'items', 'customer', 'token', 'authorization', 'Set-Cookie'];
const jsonValue = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, fc.constantFrom(...FRAGMENTS, 'Authorization', 'content-type', 'Bearer abcDEF123456'), fc.integer(), fc.boolean(), fc.constant(null), tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 6 }),
  object: fc.dictionary(fc.constantFrom(...KEYS), tie('value'), { maxKeys: 5 }),
})).value;

describe.skipIf(go === null)('Go rules agree with src/protocol', () => {
  it('masks, names, parses rules, redacts, captures, carries and truncates exactly as the server does', async () => {
    const mask = [...literalsOf('mask-error-text.test.ts'), ...literalsOf('redact.test.ts'), ...fc.sample(fragmentText, { numRuns: 3_000, seed: 7 })].filter(wellFormed);
    const names = [...NAMES, ...fc.sample(fc.array(fc.constantFrom('api', 'Key', 'secret', 'TOKEN', 'next', 'page', '_', '-', '.', 'Pass', 'word', 'x', '1'), { maxLength: 5 }).map((p) => p.join('')), { numRuns: 1_000, seed: 8 })];
    const rules = [...RULES, ...fc.sample(fc.array(fc.constantFrom('a', 'b', '.', '*', '[*]', '**.', '[', ']', ' ', '\u0001'), { maxLength: 6 }).map((p) => p.join('')), { numRuns: 500, seed: 9 })];
    const redact = fc.sample(fc.record({ rules: fc.subarray(RULES), value: jsonValue }), { numRuns: 1_500, seed: 10 }).filter((c) => wellFormed(c.value));
    const truncate = fc.sample(fc.array(fc.constantFrom('a', 'é', '😀', '\r\n', 'xyz'), { minLength: 20, maxLength: 60 }).map((p) => p.join('')), { numRuns: 500, seed: 11 });
    const idText = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 });
    const contexts = fc.sample(
      fc.record({ journeyId: fc.oneof(fc.constant('jrn_1'), idText), entity: fc.record({ type: idText, id: fc.oneof(idText, fc.constantFrom('a;b', '%41', 'x,y', ' é ')) }), parentEventId: fc.option(idText, { nil: undefined }) }),
      { numRuns: 300, seed: 12 },
    ).filter((ctx) => !ctx.journeyId.includes('\u0000') && !ctx.entity.type.includes('\u0000')) as JourneyContext[];
    const headers: Array<Record<string, unknown>> = contexts.map((ctx) => injectHttpHeaders({}, { context: () => ctx }) as Record<string, string>);
    headers.push(
      { 'x-jtrace-journey-id': 'jrn_%zz', 'x-jtrace-entity': 'a;b' },
      { 'x-jtrace-journey-id': 'jrn_%C3', 'x-jtrace-entity': 'a;b' },
      { 'x-jtrace-journey-id': ' jrn_%41 ', 'X-JTRACE-ENTITY': 'a;b;c' },
      { 'x-jtrace-journey-id': 'jrn_1, jrn_2', 'x-jtrace-entity': ['order;1', 'order;2'], 'x-jtrace-parent-event-id': '%00' },
      { 'x-wayscribe-journey-id': ' jrn_peer\t', 'x-wayscribe-entity-type': 'order', 'x-wayscribe-entity-id': 'A/1' },
      { 'x-wayscribe-journey-id': 'jrn_a\r', 'x-jtrace-entity': 'order;1' },
    );
    const text = fc.oneof(fc.string({ unit: 'binary', maxLength: 8 }), fc.constantFrom('a\u0000b', '😀', 'a'.repeat(70_000), 'é'.repeat(40_000), `${'h: v\r\n'.repeat(9_000)}`));
    const capturable = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: 'small' }, text, fc.integer(), fc.boolean(), fc.constant(null), tie('array'), tie('object')),
      array: fc.array(tie('value'), { maxLength: 5 }),
      object: fc.dictionary(text, tie('value'), { maxKeys: 4 }),
    })).value;
    const nest = (depth: number, leaf: unknown): unknown => (depth === 0 ? leaf : { n: nest(depth - 1, leaf) });
    const capture = [...fc.sample(capturable, { numRuns: 400, seed: 13 }), nest(29, 1), nest(30, { a: 1 }), nest(40, [1]), Array.from({ length: 1_200 }, (_, i) => i), Object.fromEntries(Array.from({ length: 1_100 }, (_, i) => [`k${i}`, i]))].filter(wellFormed);

    const dir = mkdtempSync(join(tmpdir(), 'jtrace-go-parity-'));
    try {
      const input = join(dir, 'cases.json');
      const output = join(dir, 'answer.json');
      writeFileSync(input, JSON.stringify({ mask, names, rules, redact, truncate, contexts, headers, capture }));
      const result = await runGo(go as string, ['test', '-tags', 'parity', '-count=1', '-run', '^TestParity$', '.'], { JTRACE_PARITY_INPUT: input, JTRACE_PARITY_OUTPUT: output });
      expect(result.code, result.output).toBe(0);
      const answer = JSON.parse(readFileSync(output, 'utf8')) as Record<string, unknown[]>;
      mask.forEach((text, i) => expect(answer.mask?.[i], JSON.stringify(text)).toBe(maskCredentialText(text)));
      names.forEach((name, i) => expect(answer.names?.[i], name).toBe(isSecretLookingName(name)));
      rules.forEach((rule, i) => expect(answer.rules?.[i], JSON.stringify(rule)).toBe(isValidRedactionRule(rule)));
      redact.forEach((c, i) => expect(answer.redact?.[i], JSON.stringify(c)).toEqual(redactValue(c.value, compileRules(c.rules).rules)));
      headers.forEach((carrier, i) => expect(answer.extract?.[i], JSON.stringify(carrier)).toEqual(extractHttpContext(carrier)));
      contexts.forEach((ctx, i) => expect(answer.inject?.[i], JSON.stringify(ctx)).toEqual(headers[i]));
      capture.forEach((value, i) => {
        const node = toWireValue(value) ?? null;
        // The Go copy, like the Python one, stops copying text past the whole envelope: such a
        // payload is replaced when the envelope is fitted in every SDK.
        if (answer.capture?.[i] === '[PAYLOAD_TOO_LARGE]' && node !== '[PAYLOAD_TOO_LARGE]') expect(JSON.stringify(node).length).toBeGreaterThan(262_144);
        else expect(answer.capture?.[i], `capture[${i}]`).toEqual(node);
      });
      truncate.forEach((text, i) => expect(answer.truncate?.[i], JSON.stringify(text)).toBe(truncateString(text, 64)));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);
});
