// Other exact forms of an identifier a search found nothing for. Identifiers are matched exactly
// (a stored e-mail is not found in capitals, a phone not with other spacing), so the search page
// tries these forms itself and says which of them match.

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const PHONE = /^\+?[\d\s().-]{7,}$/;

export function otherForms(value: string): string[] {
  const text = value.trim();
  const forms: string[] = [];
  if (EMAIL.test(text)) {
    forms.push(text.toLowerCase());
  } else if (PHONE.test(text)) {
    const digits = text.replace(/\D/g, '');
    if (digits.length >= 7) {
      forms.push(digits, `+${digits}`);
      // A national number with its trunk 0 is often stored in international form, and the reverse.
      if (digits.startsWith('0')) forms.push(`+44${digits.slice(1)}`);
      if (digits.startsWith('44')) forms.push(`0${digits.slice(2)}`);
    }
  }
  return [...new Set(forms)].filter((form) => form !== text);
}
