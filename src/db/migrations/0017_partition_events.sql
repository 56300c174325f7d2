-- Events partitioned by day of received_at (declarative partitioning, no extension), so that
-- the indexes of old days stop growing and bloating, and retention can drop a day's partition
-- as a whole once every journey with rows in it has expired (docs/retention-and-deletion.md).
--
-- Why received_at: the server stamps it, so it is always close to the server's clock and a
-- partition created a few days ahead always exists for it; event timestamps are the sender's
-- (any year 0001-9999) and would need a partition for every century.
--
-- Idempotency: a unique index of a partitioned table must contain the partition key, and a
-- duplicate of an event arrives with a later received_at, so (project_id, id) can no longer be
-- unique in events itself. event_ids, a narrow table that is not partitioned, holds it: one row
-- per event with the received_at that finds its partition. A statement trigger fills it from
-- every INSERT into events (one INSERT ... SELECT per statement, not per row), so the ingestion
-- statements stay as they are and a concurrent duplicate still fails with unique_violation.
-- event_ids is what replay runs refer to; it cascades from journeys like events do.
--
-- Partitions: events_history takes everything before yesterday (one partition whatever the
-- age of an existing database), one partition per UTC day from yesterday to a week ahead, and
-- events_default anything else (a server clock far off, a day not yet created). The server
-- creates days ahead at start and daily (src/db/event-partitions.ts); a day whose rows went to
-- the default partition has them moved into its own partition when it is created.

ALTER TABLE events RENAME TO events_unpartitioned;
ALTER TABLE events_unpartitioned RENAME CONSTRAINT events_pkey TO events_unpartitioned_pkey;
ALTER INDEX events_timeline RENAME TO events_unpartitioned_timeline;

CREATE TABLE event_ids (
  project_id   uuid        NOT NULL,
  id           text        NOT NULL,
  journey_id   text        NOT NULL,
  received_at  timestamptz NOT NULL,
  PRIMARY KEY (project_id, id),
  FOREIGN KEY (project_id, journey_id) REFERENCES journeys (project_id, id) ON DELETE CASCADE
);
-- Deleting a journey finds its ids through this index.
CREATE INDEX event_ids_journey ON event_ids (project_id, journey_id);

CREATE TABLE events (
  project_id           uuid        NOT NULL,
  id                   text        NOT NULL CHECK (length(id) BETWEEN 1 AND 128),
  journey_id           text        NOT NULL,
  environment_id       uuid        NOT NULL,
  operation            text        NOT NULL CHECK (operation IN ('received', 'identified', 'transformed', 'validated', 'persisted',
                                     'published', 'consumed', 'delivered', 'failed', 'retried', 'completed')),
  name                 text        NOT NULL,
  service              text        NOT NULL,
  event_timestamp      timestamptz NOT NULL,
  received_at          timestamptz NOT NULL,
  duration_ms          integer     CHECK (duration_ms >= 0),
  parent_event_id      text,
  trace_id             text,
  span_id              text,
  message_id           text,
  correlation_id       text,
  has_input            boolean     NOT NULL,
  has_output           boolean     NOT NULL,
  has_error            boolean     NOT NULL,
  input_payload        jsonb,
  output_payload       jsonb,
  payload_diff         jsonb,
  error                jsonb,
  runtime_metadata     jsonb,
  deployment_metadata  jsonb,
  custom_metadata      jsonb,
  stated_alias_ids     bigint[],
  content_hash         text        NOT NULL,
  content_hash_key_id  text        NOT NULL,
  PRIMARY KEY (project_id, id, received_at),
  FOREIGN KEY (project_id, journey_id, environment_id)
    REFERENCES journeys (project_id, id, environment_id) ON DELETE CASCADE
) PARTITION BY RANGE (received_at);
CREATE INDEX events_timeline ON events (project_id, journey_id, event_timestamp, received_at, id COLLATE "C");

CREATE FUNCTION jtrace_record_event_ids() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO event_ids (project_id, id, journey_id, received_at)
  SELECT project_id, id, journey_id, received_at FROM inserted_events;
  RETURN NULL;
END
$$;
CREATE TRIGGER events_record_ids AFTER INSERT ON events
  REFERENCING NEW TABLE AS inserted_events FOR EACH STATEMENT EXECUTE FUNCTION jtrace_record_event_ids();

CREATE TABLE events_default PARTITION OF events DEFAULT;
-- Creating a day's partition looks for that day's rows here.
CREATE INDEX events_default_received ON events_default (received_at);

-- Creates the missing daily partitions of [first_day, last_day] (UTC days); a day that another
-- partition already covers in part (events_history) is left to it. Returns how many it created.
CREATE FUNCTION jtrace_ensure_event_partitions(first_day date, last_day date) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  day date;
  day_start timestamptz;
  day_end timestamptz;
  part text;
  created integer := 0;
BEGIN
  FOR day IN SELECT generate_series(first_day, last_day, interval '1 day')::date LOOP
    part := 'events_p' || to_char(day, 'YYYYMMDD');
    day_start := day::timestamp AT TIME ZONE 'UTC';
    day_end := (day + 1)::timestamp AT TIME ZONE 'UTC';
    CONTINUE WHEN EXISTS (SELECT 1 FROM jtrace_event_partitions() p
                           WHERE NOT p.is_default
                             AND (p.lower_bound IS NULL OR p.lower_bound < day_end)
                             AND (p.upper_bound IS NULL OR p.upper_bound > day_start));
    IF EXISTS (SELECT 1 FROM events_default WHERE received_at >= day_start AND received_at < day_end) THEN
      -- The default partition may not keep rows of a range another partition takes: they move
      -- into the new partition before it is attached. event_ids keeps pointing at them.
      EXECUTE format('CREATE TABLE %I (LIKE events INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', part);
      EXECUTE format('WITH moved AS (DELETE FROM events_default WHERE received_at >= %L AND received_at < %L RETURNING *)
                      INSERT INTO %I SELECT * FROM moved', day_start, day_end, part);
      EXECUTE format('ALTER TABLE events ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', part, day_start, day_end);
    ELSE
      EXECUTE format('CREATE TABLE %I PARTITION OF events FOR VALUES FROM (%L) TO (%L)', part, day_start, day_end);
    END IF;
    created := created + 1;
  END LOOP;
  RETURN created;
END
$$;

-- Every partition of events with its bounds (NULL: unbounded, MINVALUE or MAXVALUE).
CREATE FUNCTION jtrace_event_partitions()
RETURNS TABLE (name text, lower_bound timestamptz, upper_bound timestamptz, is_default boolean)
LANGUAGE sql STABLE AS $$
  SELECT c.relname::text,
         (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'FROM \(''([^'']+)''\)'))[1]::timestamptz,
         (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'TO \(''([^'']+)''\)'))[1]::timestamptz,
         pg_get_expr(c.relpartbound, c.oid) = 'DEFAULT'
    FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
   WHERE i.inhparent = 'events'::regclass
$$;

DO $$
DECLARE
  today date := (now() AT TIME ZONE 'UTC')::date;
BEGIN
  EXECUTE format('CREATE TABLE events_history PARTITION OF events FOR VALUES FROM (MINVALUE) TO (%L)',
                 (today - 1)::timestamp AT TIME ZONE 'UTC');
  PERFORM jtrace_ensure_event_partitions(today - 1, today + 7);
END
$$;

-- Every event moves; the trigger writes each one's event_ids row on the way.
INSERT INTO events SELECT * FROM events_unpartitioned;

ALTER TABLE replay_runs DROP CONSTRAINT replay_runs_project_id_event_id_fkey;
ALTER TABLE replay_runs ADD FOREIGN KEY (project_id, event_id) REFERENCES event_ids (project_id, id) ON DELETE CASCADE;

DROP TABLE events_unpartitioned;
ANALYZE event_ids;
ANALYZE events;
