-- The history of settings changes: environment capture and retention, renames, destination
-- edits. Kept apart from audit_log, whose actions the spec fixes (a change of an environment's
-- retention or capture settings writes no audit row). Before and after hold settings only,
-- never a secret or a header value.
CREATE TABLE settings_changes (
  project_id       uuid        NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  id               bigint      GENERATED ALWAYS AS IDENTITY,
  action           text        NOT NULL CHECK (action IN ('project.created', 'project.renamed', 'environment.created',
                                 'environment.updated', 'replay_destination.updated', 'replay_destination.disabled',
                                 'replay_destination.enabled', 'member.role_changed')),
  subject          text        NOT NULL CHECK (length(subject) BETWEEN 1 AND 200),
  before           jsonb,
  after            jsonb,
  actor_kind       text        NOT NULL CHECK (actor_kind IN ('user', 'admin-token', 'api-key', 'cli')),
  actor_user_id    uuid,
  actor_email      text,
  actor_key_prefix text,
  client_address   text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, id)
);
CREATE INDEX settings_changes_recent ON settings_changes (project_id, created_at DESC, id DESC);
