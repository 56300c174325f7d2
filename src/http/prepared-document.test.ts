import { describe, expect, it } from 'vitest';
import { chooseCoding, matchesCurrent, prepareDocument } from './prepared-document.ts';

describe('chooseCoding', () => {
  it.each([
    [undefined, 'identity'],
    ['', 'identity'],
    ['gzip', 'gzip'],
    ['gzip, deflate, br', 'br'],
    ['br;q=0.5, gzip', 'gzip'],
    ['br;q=0, gzip;q=0', 'identity'],
    ['*', 'br'],
    ['*;q=0, gzip;q=0.1', 'gzip'],
    ['identity', 'identity'],
    ['GZIP', 'gzip'],
    ['x-gzip', 'gzip'],
    ['br;q=abc', 'identity'],
  ] as const)('%s → %s', (header, coding) => {
    expect(chooseCoding(header)).toBe(coding);
  });
});

describe('matchesCurrent', () => {
  const document = prepareDocument('{"openapi":"3.1.0"}');
  it('matches any coding of the current document, weak or strong, in a list, or *', () => {
    expect(matchesCurrent(document.etags.identity, document)).toBe(true);
    expect(matchesCurrent(`"x", W/${document.etags.br}`, document)).toBe(true);
    expect(matchesCurrent('*', document)).toBe(true);
    expect(matchesCurrent('"x"', document)).toBe(false);
    expect(matchesCurrent(undefined, document)).toBe(false);
    expect(prepareDocument('{"openapi":"3.1.1"}').etags.identity).not.toBe(document.etags.identity);
  });
});
