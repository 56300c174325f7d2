-- A journey's findings name each step once. A finding named its step and the step the value left
-- by event id, service and name, six texts per finding, though a journey's findings name the same
-- few steps again and again: 35 findings of a four-step journey wrote 210 of them (about 5 kB),
-- most of what storing findings cost. The row now lists the steps its findings name once
-- (step_ids, step_services, step_names: in the order the findings first name them, each finding's
-- step before its from step) and each finding refers to them by place (step_at, from_at: 1-based,
-- NULL for none).

ALTER TABLE journey_findings
  ADD COLUMN step_ids      text[],
  ADD COLUMN step_services text[],
  ADD COLUMN step_names    text[],
  ADD COLUMN step_at       smallint[],
  ADD COLUMN from_at       smallint[];

UPDATE journey_findings f SET (step_ids, step_services, step_names, step_at, from_at) = (
  WITH refs AS (
    SELECT u.ordinal * 2 AS seq, u.id, u.service, u.name
      FROM unnest(f.step_event_id, f.step_service, f.step_name) WITH ORDINALITY AS u(id, service, name, ordinal)
     WHERE u.id IS NOT NULL
    UNION ALL
    SELECT u.ordinal * 2 + 1, u.id, u.service, u.name
      FROM unnest(f.from_event_id, f.from_service, f.from_name) WITH ORDINALITY AS u(id, service, name, ordinal)
     WHERE u.id IS NOT NULL
  ), firsts AS (
    SELECT DISTINCT ON (id) id, service, name, seq FROM refs ORDER BY id, seq
  ), places AS (
    SELECT id, service, name, (row_number() OVER (ORDER BY seq))::smallint AS at FROM firsts
  )
  SELECT COALESCE((SELECT array_agg(id ORDER BY at) FROM places), '{}'),
         COALESCE((SELECT array_agg(service ORDER BY at) FROM places), '{}'),
         COALESCE((SELECT array_agg(name ORDER BY at) FROM places), '{}'),
         (SELECT array_agg(p.at ORDER BY u.ordinal) FROM unnest(f.step_event_id) WITH ORDINALITY AS u(id, ordinal) LEFT JOIN places p ON p.id = u.id),
         (SELECT array_agg(p.at ORDER BY u.ordinal) FROM unnest(f.from_event_id) WITH ORDINALITY AS u(id, ordinal) LEFT JOIN places p ON p.id = u.id)
);

-- Dropping the columns drops the check that tied their lengths to kind's.
ALTER TABLE journey_findings
  DROP COLUMN step_event_id, DROP COLUMN step_service, DROP COLUMN step_name,
  DROP COLUMN from_event_id, DROP COLUMN from_service, DROP COLUMN from_name,
  ALTER COLUMN step_ids SET NOT NULL, ALTER COLUMN step_services SET NOT NULL, ALTER COLUMN step_names SET NOT NULL,
  ALTER COLUMN step_at SET NOT NULL, ALTER COLUMN from_at SET NOT NULL,
  ADD CONSTRAINT journey_findings_arrays CHECK (
    cardinality(kind) >= 1 AND array_ndims(kind) = 1
    AND cardinality(path) = cardinality(kind) AND cardinality(step_at) = cardinality(kind)
    AND cardinality(in_transit) = cardinality(kind) AND cardinality(from_at) = cardinality(kind)
    AND cardinality(first_found_at) = cardinality(kind)
    AND cardinality(step_services) = cardinality(step_ids) AND cardinality(step_names) = cardinality(step_ids)
    AND 1 <= ALL (step_at) AND cardinality(step_ids) >= ALL (step_at)
    AND 1 <= ALL (from_at) AND cardinality(step_ids) >= ALL (from_at));
