import { describe, expect, it } from 'vitest';
import { adminTokenMatches } from './admin-token.ts';

const TOKEN = 'an-admin-token-of-at-least-thirty-two-chars';

describe('adminTokenMatches', () => {
  it('matches only the exact token', () => {
    expect(adminTokenMatches(TOKEN, TOKEN)).toBe(true);
    expect(adminTokenMatches(TOKEN, TOKEN + ' ')).toBe(false);
    expect(adminTokenMatches(TOKEN, TOKEN.slice(0, -1))).toBe(false);
    expect(adminTokenMatches(TOKEN, TOKEN.toUpperCase())).toBe(false);
    expect(adminTokenMatches(TOKEN, '')).toBe(false);
  });

  it('accepts inputs of any length without throwing (lengths are hashed away)', () => {
    expect(adminTokenMatches(TOKEN, 'x'.repeat(100_000))).toBe(false);
    expect(adminTokenMatches(TOKEN, 'x')).toBe(false);
  });

  it('never matches an empty expected token', () => {
    expect(adminTokenMatches('', '')).toBe(false);
  });

  it('distinguishes strings UTF-8 would confuse', () => {
    expect(adminTokenMatches('a\uFFFD', 'a\uD800')).toBe(false);
  });
});
