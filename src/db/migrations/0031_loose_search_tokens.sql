-- Loose matching of e-mail addresses and phone numbers (docs/decisions.md, "Loose matching of
-- e-mail addresses and phone numbers"). Search and erasure match an identifier's normalized value
-- exactly (trim, lower-case UUIDs) and stay so; what a support person types ("Ada@Example.COM",
-- "020 7946-0018") finds nothing when the webhook sent another spelling. These tokens index an
-- alias's standard normal form beside its exact token, keyed the same way (a keyed MAC with the
-- id of the key that made it), and are read only when a request asks for loose matching.
--
-- A table of its own rather than new kinds of search_tokens: exact search and erasure read
-- search_tokens and must answer exactly as before, and rotation's accounting of search_tokens
-- stays as it is. kind names the normal form (email, phone in E.164, phone national digits).
CREATE TABLE loose_search_tokens (
  project_id  uuid NOT NULL,
  token       text NOT NULL,
  journey_id  text NOT NULL,
  kind        text NOT NULL CHECK (kind IN ('email', 'phone', 'phone_national')),
  key_id      text NOT NULL,
  PRIMARY KEY (project_id, token, journey_id, kind),
  FOREIGN KEY (project_id, journey_id) REFERENCES journeys (project_id, id) ON DELETE CASCADE
);
-- Deleting a journey and the backfill's per-journey rewrite find a journey's rows by it.
CREATE INDEX loose_search_tokens_journey ON loose_search_tokens (project_id, journey_id);

-- Aliases stored before this migration (or under a key since replaced) get their loose tokens
-- from a background job on the worker role, in bounded batches of journeys. Its position is kept
-- here, one row, so a restarted worker resumes where the last committed batch ended; a new
-- current key starts it again from the beginning.
CREATE TABLE loose_token_backfill (
  id                int         PRIMARY KEY CHECK (id = 1),
  key_id            text        NOT NULL,
  after_project_id  uuid,
  after_journey_id  text,
  journeys_done     bigint      NOT NULL DEFAULT 0,
  completed_at      timestamptz,
  updated_at        timestamptz NOT NULL DEFAULT now()
);
