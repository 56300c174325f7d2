-- Teams: people with their own sign-in and a role per project (docs/roles.md). Accounts are
-- instance-wide, so users, their sessions, tokens, one-time links and the sign-in throttle are
-- not keyed by a project; memberships are, and cascade with the project and with the user.
-- The throttle lives here rather than in memory so that every instance on this database shares
-- one count per address and per account.

CREATE TABLE users (
  id                  uuid        PRIMARY KEY,
  email               text        NOT NULL CHECK (length(email) BETWEEN 3 AND 254),
  display_name        text        NOT NULL DEFAULT '' CHECK (length(display_name) <= 200),
  state               text        NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'disabled')),
  owner               boolean     NOT NULL DEFAULT false,
  -- argon2id PHC string; null until the person sets a password (invited, or single sign-on only).
  password_hash       text,
  created_at          timestamptz NOT NULL DEFAULT now(),
  last_sign_in_at     timestamptz
);
-- E-mail addresses are compared case-insensitively.
CREATE UNIQUE INDEX users_email ON users (lower(email));

CREATE TABLE project_members (
  project_id  uuid        NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  user_id     uuid        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  role        text        NOT NULL CHECK (role IN ('viewer', 'operator', 'admin')),
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, user_id)
);
CREATE INDEX project_members_user ON project_members (user_id);

-- The cookie carries a random id; only its SHA-256 is stored, so a database dump signs no one in.
-- admin_epoch fingerprints the admin token the session was made under: changing the token ends
-- every session, a person's included (interface-spec 5).
CREATE TABLE user_sessions (
  id_hash       text        PRIMARY KEY CHECK (id_hash ~ '^[0-9a-f]{64}$'),
  public_id     uuid        NOT NULL UNIQUE,
  user_id       uuid        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  admin_epoch   text        NOT NULL,
  created_at    timestamptz NOT NULL,
  last_seen_at  timestamptz NOT NULL,
  client        text        NOT NULL DEFAULT '',
  user_agent    text        NOT NULL DEFAULT '' CHECK (length(user_agent) <= 200)
);
CREATE INDEX user_sessions_user ON user_sessions (user_id);

-- Personal access tokens: stored like API keys, a clear prefix and a peppered HMAC.
CREATE TABLE personal_tokens (
  id            uuid        PRIMARY KEY,
  user_id       uuid        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  name          text        NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  prefix        text        NOT NULL UNIQUE,
  hash          text        NOT NULL,
  hash_key_id   text        NOT NULL,
  created_at    timestamptz NOT NULL,
  expires_at    timestamptz,
  last_used_at  timestamptz,
  revoked_at    timestamptz
);
CREATE INDEX personal_tokens_user ON personal_tokens (user_id);

-- Invitations and password resets: one-time links, stored hashed, 72 hours, used once.
CREATE TABLE password_links (
  token_hash  text        PRIMARY KEY CHECK (token_hash ~ '^[0-9a-f]{64}$'),
  user_id     uuid        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  purpose     text        NOT NULL CHECK (purpose IN ('invitation', 'reset')),
  created_at  timestamptz NOT NULL,
  expires_at  timestamptz NOT NULL,
  used_at     timestamptz
);
CREATE INDEX password_links_user ON password_links (user_id);

-- Refused password sign-ins per address and per account (the account's key is a keyed hash of
-- the lower-cased e-mail, so unknown addresses are counted without being stored).
CREATE TABLE sign_in_throttle (
  scope             text        NOT NULL CHECK (scope IN ('address', 'account')),
  key               text        NOT NULL,
  failures          integer     NOT NULL,
  window_started_at timestamptz NOT NULL,
  locked_until      timestamptz,
  PRIMARY KEY (scope, key)
);

-- Who did what: every audit row names its actor and the client address. Additive: the spec's
-- actions, details and transaction rules are unchanged, and rows written before stay readable.
ALTER TABLE audit_log
  ADD COLUMN actor_kind       text CHECK (actor_kind IN ('user', 'admin-token', 'api-key', 'cli')),
  ADD COLUMN actor_user_id    uuid,
  ADD COLUMN actor_email      text,
  ADD COLUMN actor_key_prefix text,
  ADD COLUMN client_address   text;
ALTER TABLE audit_log DROP CONSTRAINT audit_log_action_check;
ALTER TABLE audit_log ADD CONSTRAINT audit_log_action_check CHECK (action IN ('journey.deleted', 'erasure.completed',
  'range.deleted', 'replay_destination.created', 'replay_destination.deleted', 'api_key.created', 'api_key.revoked',
  'member.granted', 'member.revoked'));

-- Actions on accounts belong to no project: they have their own trail, with the same actor columns.
CREATE TABLE account_audit_log (
  id               bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  action           text        NOT NULL CHECK (action IN ('user.created', 'user.disabled', 'user.enabled',
                                 'token.created', 'token.revoked', 'session.signed_in', 'session.sign_in_refused',
                                 'password.reset')),
  subject_user_id  uuid,
  details          jsonb       NOT NULL,
  actor_kind       text        NOT NULL CHECK (actor_kind IN ('user', 'admin-token', 'api-key', 'cli', 'none')),
  actor_user_id    uuid,
  actor_email      text,
  actor_key_prefix text,
  client_address   text,
  created_at       timestamptz NOT NULL DEFAULT now()
);
