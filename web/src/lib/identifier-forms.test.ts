import fc from 'fast-check';
import { expect, it } from 'vitest';
import { otherForms } from './identifier-forms.ts';

it('offers the lower-case form of an e-mail and the usual forms of a phone number', () => {
  expect(otherForms('Alan.Allen@Example.COM')).toEqual(['alan.allen@example.com']);
  expect(otherForms('alan.allen@example.com')).toEqual([]);
  expect(otherForms('01632 960126')).toEqual(['01632960126', '+01632960126', '+441632960126']);
  expect(otherForms('+44 1632-960126')).toEqual(['441632960126', '+441632960126', '01632960126']);
  expect(otherForms('contact-1001')).toEqual([]);
  expect(otherForms('jrn_demo_1001')).toEqual([]);
});

it('never offers the value itself, an empty form or a duplicate', () => {
  fc.assert(
    fc.property(fc.string(), (value) => {
      const forms = otherForms(value);
      expect(forms).not.toContain(value.trim());
      expect(forms.every((form) => form.length > 0)).toBe(true);
      expect(new Set(forms).size).toBe(forms.length);
    }),
  );
});
