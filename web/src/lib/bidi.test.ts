import { expect, it } from 'vitest';
import { escapeBidiControls, showBidiControls, splitBidiControls } from './bidi.ts';

it('cuts a value around its direction controls and names each by its code point', () => {
  expect(splitBidiControls('a\u202Emoc.elpmaxe@bob')).toEqual([{ text: 'a' }, { control: 'U+202E' }, { text: 'moc.elpmaxe@bob' }]);
  expect(splitBidiControls('\u2066x\u2069')).toEqual([{ control: 'U+2066' }, { text: 'x' }, { control: 'U+2069' }]);
  expect(splitBidiControls('plain')).toEqual([{ text: 'plain' }]);
  expect(splitBidiControls('')).toEqual([]);
});

it('shows controls in plain text and escapes them in JSON, leaving other text alone', () => {
  expect(showBidiControls('pay\u202Ement \u200F')).toBe('pay[U+202E]ment [U+200F]');
  expect(showBidiControls('שלום')).toBe('שלום');
  const json = escapeBidiControls(JSON.stringify({ 'k\u202Eey': 'v\u061C' }));
  expect(json).toBe('{"k\\u202eey":"v\\u061c"}');
  expect(JSON.parse(json)).toEqual({ 'k\u202Eey': 'v\u061C' });
});
