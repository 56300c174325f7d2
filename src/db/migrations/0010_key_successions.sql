-- Which encryption key replaced which. Key ids are hashes without an order, so stored values
-- alone cannot tell a process whether a key it does not have is newer than its own: after a
-- rotation, a process still on the outgoing key found nothing under it, erased nothing and
-- reported the erasure complete. A process configured with a previous key records here that its
-- current key supersedes it; a process whose current key is listed refuses erasures, range
-- deletions, key creation and rotation (docs/operations.md, "Key rotation").
-- Keys belong to the installation, not to a project: this table has no project_id.
CREATE TABLE key_successions (
  key_id        text        PRIMARY KEY CHECK (key_id ~ '^[0-9a-f]{8}$'),
  superseded_by text        NOT NULL CHECK (superseded_by ~ '^[0-9a-f]{8}$' AND superseded_by <> key_id),
  superseded_at timestamptz NOT NULL DEFAULT now()
);
