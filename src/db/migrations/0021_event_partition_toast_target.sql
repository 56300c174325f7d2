-- Event partitions keep rows of up to a page inline and uncompressed (toast_tuple_target =
-- 8160, the largest value). A typical event row is a little over 2 KB: above the default
-- target of about 2 KB, so PostgreSQL tried to compress every row's payloads as it inserted
-- them, which was a measurable share of writing a batch's events (docs/benchmarks.md, "Event
-- storage"). Rows beyond a page are still compressed and moved out of line as before. The cost
-- is disk: payloads that compressed now take their full size (the same section gives the bytes
-- per event).
--
-- A storage parameter cannot be set on a partitioned table, so each partition carries it: the
-- existing ones here, each new day through jtrace_ensure_event_partitions (redefined below,
-- otherwise as in migration 0017). Rows already stored keep their form.

CREATE OR REPLACE FUNCTION jtrace_ensure_event_partitions(first_day date, last_day date) RETURNS integer
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
      EXECUTE format('CREATE TABLE %I (LIKE events INCLUDING DEFAULTS INCLUDING CONSTRAINTS) WITH (toast_tuple_target = 8160)', part);
      EXECUTE format('WITH moved AS (DELETE FROM events_default WHERE received_at >= %L AND received_at < %L RETURNING *)
                      INSERT INTO %I SELECT * FROM moved', day_start, day_end, part);
      EXECUTE format('ALTER TABLE events ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', part, day_start, day_end);
    ELSE
      EXECUTE format('CREATE TABLE %I PARTITION OF events FOR VALUES FROM (%L) TO (%L) WITH (toast_tuple_target = 8160)',
                     part, day_start, day_end);
    END IF;
    created := created + 1;
  END LOOP;
  RETURN created;
END
$$;

DO $$
DECLARE
  part text;
BEGIN
  FOR part IN SELECT name FROM jtrace_event_partitions() LOOP
    EXECUTE format('ALTER TABLE %I SET (toast_tuple_target = 8160)', part);
  END LOOP;
END
$$;
