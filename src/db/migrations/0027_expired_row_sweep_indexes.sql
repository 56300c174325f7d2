-- The retention sweep now also removes rows that only ever expire: spent sign-in throttle rows,
-- ended sessions, used or expired password links, and finished alert notifications with their
-- delivery log (docs/retention-and-deletion.md). It finds each by age in bounded batches, so
-- the tables that can grow without a person behind every row get an index on that age: the
-- throttle gains a row per refused address or e-mail from anyone, and the outbox and its log a
-- row per notification and attempt. Sessions and links follow people and stay small.
CREATE INDEX sign_in_throttle_window ON sign_in_throttle (window_started_at);
CREATE INDEX alert_outbox_finished ON alert_outbox (created_at) WHERE status IN ('sent', 'failed');
-- Deleting a notification removes its attempts (its own statement and the foreign key's cascade):
-- without this index each one would read the whole delivery log.
CREATE INDEX alert_deliveries_by_outbox ON alert_deliveries (project_id, outbox_id);
