import { describe, expect, it } from 'vitest';
import { passwordProblem } from './passwords.ts';

describe('passwordProblem', () => {
  const email = 'person@example.com';
  it('refuses NUL and unpaired surrogates, which the hash could not tell apart', () => {
    expect(passwordProblem('long enough pass\u0000', email)).toBe('The password holds a NUL character.');
    for (const bad of ['\uD800', '\uDFFF', '\uDE00\uD83D']) {
      expect(passwordProblem(`long enough pass${bad}`, email)).toBe('The password holds an unpaired surrogate.');
    }
    expect(passwordProblem('long enough pass😀', email)).toBeNull();
  });
});
