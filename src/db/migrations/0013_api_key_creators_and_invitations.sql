-- Who made each API key, for the Settings page's "created by" column: the actor's kind and, at
-- that time, the person's id and e-mail or the creating key's prefix (the same actor columns as
-- audit_log). Keys made before this migration keep NULL: their creator was not recorded.
ALTER TABLE api_keys
  ADD COLUMN created_by_kind       text CHECK (created_by_kind IN ('user', 'admin-token', 'api-key', 'cli')),
  ADD COLUMN created_by_user_id    uuid,
  ADD COLUMN created_by_email      text,
  ADD COLUMN created_by_key_prefix text;

-- The Settings list reads one project's keys, newest first.
CREATE INDEX api_keys_project_created ON api_keys (project_id, created_at DESC);

-- A project admin may hand a pending member a new invitation link (docs/roles.md); the accounts'
-- trail records it like a password reset.
ALTER TABLE account_audit_log DROP CONSTRAINT account_audit_log_action_check;
ALTER TABLE account_audit_log ADD CONSTRAINT account_audit_log_action_check CHECK (action IN ('user.created', 'user.disabled',
  'user.enabled', 'token.created', 'token.revoked', 'session.signed_in', 'session.sign_in_refused', 'password.reset',
  'invitation.reissued'));
