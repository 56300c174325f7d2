-- Sessions of the web interface live in a signed cookie, not in the database; this table holds
-- only the sessions ended by signing out, so that a copy of a signed-out cookie is refused until
-- it would have expired anyway. Rows past expires_at are useless and are removed on sign-out.
CREATE TABLE web_session_revocations (
  session_id uuid PRIMARY KEY,
  expires_at timestamptz NOT NULL
);

CREATE INDEX web_session_revocations_expires_at ON web_session_revocations (expires_at);
