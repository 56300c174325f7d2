-- A third kind of row in the sign-in throttle: an address against one account ('pair', keyed by
-- the account's hash and the address). While an account is locked by refused sign-ins, an
-- address with no refusal against that account may still try once, so that guessing from
-- elsewhere does not lock its owner out; the pair row records that try (docs/roles.md,
-- "Throttling").
ALTER TABLE sign_in_throttle DROP CONSTRAINT sign_in_throttle_scope_check;
ALTER TABLE sign_in_throttle ADD CONSTRAINT sign_in_throttle_scope_check CHECK (scope IN ('address', 'account', 'pair'));
