// Loose forms: the standard normal form of an identifier whose kind has one, so that what a
// support person types ("Ada@Example.COM", "+44 20 7946-0018") finds what a webhook sent
// ("ada@example.com", "+442079460018"). Exact search keeps matching the value as normalized by
// event-protocol 4.2 (trim, lower-case UUIDs); loose forms are an opt-in beside it
// (docs/decisions.md, "Loose matching of e-mail addresses and phone numbers").
//
// - email: any alias value shaped like one address (local@domain.tld, no white space), whatever
//   its alias type is called; the form is the whole address in lower case.
// - phone: an alias whose type name says phone (phone, msisdn, mobile, tel, ...), or any value
//   written in international form (+ or 00) that is a valid number. International numbers give
//   their E.164 form and their national digits; a number written without a country code gives
//   its national digits only, as no country is assumed.

import parsePhoneNumber from 'libphonenumber-js/max';

export const LOOSE_FORM_KINDS = ['email', 'phone', 'phone_national'] as const;
export type LooseFormKind = (typeof LOOSE_FORM_KINDS)[number];

export interface LooseForm {
  kind: LooseFormKind;
  /** The normal form, e.g. "ada@example.com", "+442079460018", "02079460018". */
  value: string;
}

/** One address, no white space, a dot in the domain: what a person would call an e-mail address. */
const EMAIL_SHAPE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/u;

/** Alias type names that say "phone number", compared without case and separators. */
const PHONE_TYPE_WORDS = ['phone', 'msisdn', 'mobile', 'cellphone'];
const PHONE_TYPE_NAMES = new Set(['tel', 'telephone', 'cell', 'fax', 'sms', 'whatsapp']);

/** Characters people put between the digits of a phone number. */
const PHONE_SHAPE = /^\+?[\d\s().\-/]+$/u;
/** ITU E.164 allows at most 15 digits; fewer than 6 is an extension or a code, not a number. */
const MIN_PHONE_DIGITS = 6;
const MAX_PHONE_DIGITS = 15;

export function isPhoneAliasType(type: string): boolean {
  const word = type.toLowerCase().replace(/[^a-z]/gu, '');
  return PHONE_TYPE_NAMES.has(word) || PHONE_TYPE_WORDS.some((candidate) => word.includes(candidate));
}

export function emailForm(value: string): LooseForm | null {
  const trimmed = value.trim();
  return EMAIL_SHAPE.test(trimmed) ? { kind: 'email', value: trimmed.toLowerCase() } : null;
}

/**
 * The forms of a phone number as written: E.164 and national digits when it is written with its
 * country code (+44, 0044) and valid, national digits alone when written without one.
 */
export function phoneForms(value: string): LooseForm[] {
  const trimmed = value.trim();
  if (!PHONE_SHAPE.test(trimmed)) return [];
  const digits = trimmed.replace(/\D/gu, '');
  if (digits.length < MIN_PHONE_DIGITS || digits.length > MAX_PHONE_DIGITS + 2) return [];
  const international = trimmed.startsWith('+') ? `+${digits}` : digits.startsWith('00') ? `+${digits.slice(2)}` : null;
  if (international === null) return digits.length > MAX_PHONE_DIGITS ? [] : [{ kind: 'phone_national', value: digits }];
  const parsed = parsePhoneNumber(international);
  if (parsed === undefined || !parsed.isValid()) return [];
  return [
    { kind: 'phone', value: parsed.number },
    { kind: 'phone_national', value: parsed.formatNational().replace(/\D/gu, '') },
  ];
}

/** The loose forms a stored alias is indexed under (none for most aliases). */
export function aliasLooseForms(type: string, value: string): LooseForm[] {
  const email = emailForm(value);
  if (email !== null) return [email];
  const phones = phoneForms(value);
  if (isPhoneAliasType(type)) return phones;
  // A value written with its country code is a phone number whatever its type is called.
  return phones.some((form) => form.kind === 'phone') ? phones : [];
}

/** The loose forms a typed search value may mean: an address, a phone number, or neither. */
export function queryLooseForms(value: string): LooseForm[] {
  const email = emailForm(value);
  return email !== null ? [email] : phoneForms(value);
}

/** What a form's token is made from: the kind keeps "email" and "phone" values apart. */
export function looseTokenInput(form: LooseForm): string {
  return `loose\u0000${form.kind}\u0000${form.value}`;
}
