// Loose search tokens are keyed like the exact ones (the same HMAC subkey, stored with the id of
// the key that made them), over the form's kind and normal form, so an e-mail form and a phone
// form never share a token, and nobody without ENCRYPTION_KEY can test a guess.

import { aliasLooseForms, looseTokenInput, queryLooseForms, type LooseForm, type LooseFormKind } from './loose-forms.ts';
import type { Keyring } from './keyring.ts';
import { searchTokenForWrite, searchTokensForLookup } from './search-tokens.ts';

export interface LooseToken {
  kind: LooseFormKind;
  keyId: string;
  token: string;
}

/** The tokens to store for an alias under the current key: none when its kind has no normal form. */
export function aliasLooseTokensForWrite(keyring: Keyring, type: string, value: string): LooseToken[] {
  return aliasLooseForms(type, value).map((form) => ({ kind: form.kind, ...searchTokenForWrite(keyring, looseTokenInput(form)) }));
}

export interface LooseLookup {
  form: LooseForm;
  /** One token per configured key, current first. */
  tokens: string[];
}

/** What to look for: each form the typed value may mean, with its tokens under every configured key. */
export function looseLookups(keyring: Keyring, value: string): LooseLookup[] {
  return queryLooseForms(value).map((form) => ({
    form,
    tokens: searchTokensForLookup(keyring, looseTokenInput(form)).map((token) => token.token),
  }));
}
