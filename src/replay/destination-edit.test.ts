import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AppError } from '../http/errors.ts';
import { mergeHeaders, parseDestinationPatch } from './destination-edit.ts';

const headerName = fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,11}$/);

describe('parseDestinationPatch', () => {
  it('answers any JSON with a patch or a 400 invalid_request, never another failure', () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), fc.record({ name: fc.jsonValue(), baseUrl: fc.jsonValue(), headers: fc.jsonValue(), disabled: fc.jsonValue() }, { requiredKeys: [] })), (body) => {
        try {
          parseDestinationPatch(body);
        } catch (error) {
          expect(error).toBeInstanceOf(AppError);
          expect((error as AppError).code).toBe('invalid_request');
          expect((error as AppError).details?.length).toBeGreaterThan(0);
        }
      }),
    );
  });
});

describe('mergeHeaders', () => {
  it('keeps what the patch leaves out, sets strings, removes nulls, names compared in any case', () => {
    fc.assert(
      fc.property(fc.dictionary(headerName, fc.string()), fc.dictionary(headerName, fc.option(fc.string(), { nil: null })), (current, patch) => {
        const lowerPatch = new Set(Object.keys(patch).map((n) => n.toLowerCase()));
        // Stored names are unique in any case (the create and edit rules refuse duplicates).
        const stored = Object.fromEntries([...new Map(Object.entries(current).map(([n, v]) => [n.toLowerCase(), [n, v] as const])).values()]);
        const merged = mergeHeaders(stored, patch);
        const names = Object.keys(merged).map((n) => n.toLowerCase());
        expect(new Set(names).size).toBe(names.length);
        for (const [name, value] of Object.entries(stored)) {
          if (!lowerPatch.has(name.toLowerCase())) expect(merged[name]).toBe(value);
        }
        for (const [name, value] of Object.entries(patch)) {
          const found = Object.keys(merged).find((n) => n.toLowerCase() === name.toLowerCase());
          const last = Object.entries(patch).filter(([n]) => n.toLowerCase() === name.toLowerCase()).at(-1)!;
          if (last[1] === null) expect(found).toBeUndefined();
          else expect(merged[found!]).toBe(last[1]);
          void value;
        }
      }),
    );
  });
});
