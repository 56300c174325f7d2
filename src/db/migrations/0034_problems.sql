-- Problems: findings grouped by project, environment, kind, field path and place (docs/problems.md),
-- so a team sees distinct problems, the journeys each hits, its releases, and can resolve, ignore
-- or mark one expected. "Changed customer.phone at normalize-contact" on every journey was noise
-- beside a real loss; two losses of one field at two places were one row with two fixes.
--
-- Kept by statement-level triggers on journey_findings with transition tables, in the statement
-- that writes or removes findings: the analyzer's store, and every deletion path (journey delete,
-- erasure, range deletion, retention) through the ON DELETE CASCADE from journeys, so a problem's
-- counts equal its findings in every committed state (docs/decisions.md, "Problems kept by a
-- trigger on the findings"). A problem's id is derived from its key (problem_id_of), so a finding
-- finds its problem without a lookup, and the summary and alert queries can tell an expected one.

-- The key of a problem as a uuid: quote_nullable tells NULL from every text, so two keys that
-- differ give two texts. The from step is part of the place for a loss in transit (the hand-off)
-- and an overdue gap (the step before it); elsewhere it repeats the step (duplicated) or is none.
CREATE FUNCTION problem_id_of(project uuid, environment uuid, kind text, path text, step_service text, step_name text,
                              from_service text, from_name text, in_transit boolean) RETURNS uuid
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  -- A name-based UUID (version 3: MD5) with the variant bits 10 set (RFC 9562), in one expression.
  RETURN overlay(overlay(md5(concat_ws(' ', project, environment, quote_literal(kind), quote_nullable(path), quote_nullable(step_service),
                       quote_nullable(step_name), quote_nullable(from_service), quote_nullable(from_name), in_transit))
                 PLACING '3' FROM 13 FOR 1) PLACING '8' FROM 17 FOR 1)::uuid;

CREATE TABLE problems (
  project_id            uuid        NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  id                    uuid        NOT NULL,
  environment_id        uuid        NOT NULL,
  kind                  text        NOT NULL CHECK (kind IN ('lost', 'changed', 'duplicated', 'failed', 'overdue', 'skipped_step')),
  path                  text,
  step_service          text,
  step_name             text,
  from_service          text,
  from_name             text,
  in_transit            boolean     NOT NULL,
  status                text        NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'regressed', 'resolved', 'ignored', 'expected')),
  status_changed_at     timestamptz NOT NULL DEFAULT now(),
  -- The watermark: a journey reopens a resolved problem only with an event received after it.
  resolved_at           timestamptz,
  resolved_next_release boolean     NOT NULL DEFAULT false,
  ignored_until         timestamptz,
  ignored_more_journeys integer     CHECK (ignored_more_journeys >= 1),
  -- Journeys that newly had it since the last status change ("until it affects N more journeys").
  journeys_since_status integer     NOT NULL DEFAULT 0,
  regressed_at          timestamptz,
  regressed_release     text,
  -- The journey that brought it back (the regression alert names it).
  regressed_journey     text,
  journeys              integer     NOT NULL DEFAULT 0 CHECK (journeys >= 0),
  first_seen            timestamptz,
  last_seen             timestamptz,
  PRIMARY KEY (project_id, id),
  FOREIGN KEY (project_id, environment_id) REFERENCES environments (project_id, id) ON DELETE CASCADE,
  CHECK ((status = 'resolved') = (resolved_at IS NOT NULL)),
  CHECK ((status = 'regressed') = (regressed_at IS NOT NULL))
);
-- The list's sorts, read backwards: a page walks the index and stops (docs/benchmarks.md, Problems).
CREATE INDEX problems_by_journeys ON problems (project_id, journeys, id);
CREATE INDEX problems_by_last_seen ON problems (project_id, last_seen NULLS FIRST, id);
CREATE INDEX problems_by_first_seen ON problems (project_id, first_seen NULLS FIRST, id);
-- Regression alert rules count the problems that came back in a window.
CREATE INDEX problems_regressions ON problems (project_id, regressed_at) WHERE regressed_at IS NOT NULL;

-- One row per problem and journey that has it: counts, series and releases read these.
CREATE TABLE problem_journeys (
  project_id  uuid        NOT NULL,
  problem_id  uuid        NOT NULL,
  journey_id  text        NOT NULL,
  -- The journey's lastEventAt at its analysis (its findings' observed_at).
  seen_at     timestamptz NOT NULL,
  -- The deployment (version, else gitCommit) of the finding's step event; NULL without one.
  release     text,
  PRIMARY KEY (project_id, problem_id, journey_id),
  FOREIGN KEY (project_id, problem_id) REFERENCES problems (project_id, id) ON DELETE CASCADE
);
CREATE INDEX problem_journeys_seen ON problem_journeys (project_id, problem_id, seen_at);
CREATE INDEX problem_journeys_release ON problem_journeys (project_id, release, problem_id) WHERE release IS NOT NULL;

-- Releases the project has been seen in, with the earliest receipt known: "resolved in the next
-- release" reopens only for a release first seen after the resolution.
CREATE TABLE project_releases (
  project_id     uuid        NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  release        text        NOT NULL,
  first_seen_at  timestamptz NOT NULL,
  PRIMARY KEY (project_id, release)
);

-- The problems of one stored findings row, one per finding, with the event that places it.
CREATE FUNCTION problem_keys(r journey_findings) RETURNS TABLE (problem_id uuid, event_id text, ordinal bigint, kind text, path text,
    step_service text, step_name text, from_service text, from_name text, in_transit boolean)
  LANGUAGE sql STABLE AS $$
  SELECT problem_id_of(r.project_id, r.environment_id, k.kind, k.path, k.ss, k.sn, k.fs, k.fn, k.t), k.ev, k.i, k.kind, k.path, k.ss, k.sn, k.fs, k.fn, k.t
    FROM (SELECT u.kind, u.path, r.step_services[u.s] AS ss, r.step_names[u.s] AS sn,
                 CASE WHEN u.t OR u.kind = 'overdue' THEN r.step_services[u.f] END AS fs,
                 CASE WHEN u.t OR u.kind = 'overdue' THEN r.step_names[u.f] END AS fn,
                 u.t, COALESCE(r.step_ids[u.s], r.step_ids[u.f]) AS ev, u.i
            FROM unnest(r.kind, r.path, r.step_at, r.in_transit, r.from_at) WITH ORDINALITY AS u(kind, path, s, t, f, i)) k
$$;

-- Replaces the problems of the rows `gone` by those of the rows `came` (a statement's transition tables).
CREATE FUNCTION problems_apply(gone journey_findings[], came journey_findings[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  ins_projects uuid[]; ins_problems uuid[]; ins_journeys text[]; ins_releases text[];
  rem_projects uuid[]; rem_problems uuid[]; mov_projects uuid[]; mov_problems uuid[];
BEGIN
  IF cardinality(gone) = 0 AND cardinality(came) = 0 THEN RETURN; END IF;
  INSERT INTO problems (project_id, id, environment_id, kind, path, step_service, step_name, from_service, from_name, in_transit)
  SELECT DISTINCT r.project_id, k.problem_id, r.environment_id, k.kind, k.path, k.step_service, k.step_name, k.from_service, k.from_name, k.in_transit
    FROM unnest(came) r, LATERAL problem_keys(r) k
  ON CONFLICT (project_id, id) DO NOTHING;

  WITH b AS (
    SELECT DISTINCT r.project_id, k.problem_id, r.journey_id FROM unnest(gone) r, LATERAL problem_keys(r) k
  ), a AS (
    -- A journey with a problem at several steps: the latest one's event gives the release.
    SELECT DISTINCT ON (r.project_id, k.problem_id, r.journey_id) r.project_id, k.problem_id, r.journey_id, r.observed_at AS seen_at, k.event_id
      FROM unnest(came) r, LATERAL problem_keys(r) k
     ORDER BY r.project_id, k.problem_id, r.journey_id, k.ordinal DESC
  ), removed AS (
    DELETE FROM problem_journeys m USING b
     WHERE m.project_id = b.project_id AND m.problem_id = b.problem_id AND m.journey_id = b.journey_id
       AND NOT EXISTS (SELECT 1 FROM a WHERE a.project_id = b.project_id AND a.problem_id = b.problem_id AND a.journey_id = b.journey_id)
    RETURNING m.project_id, m.problem_id
  ), fresh AS (
    SELECT a.project_id, a.problem_id, a.journey_id, a.seen_at, d.release, d.received_at
      FROM a
      LEFT JOIN LATERAL (
        SELECT COALESCE(NULLIF(e.deployment_metadata->>'version', ''), NULLIF(e.deployment_metadata->>'gitCommit', '')) AS release, e.received_at
          FROM event_ids i JOIN events e ON e.project_id = i.project_id AND e.id = i.id AND e.received_at = i.received_at
         WHERE i.project_id = a.project_id AND i.id = a.event_id) d ON true
     WHERE NOT EXISTS (SELECT 1 FROM problem_journeys m WHERE m.project_id = a.project_id AND m.problem_id = a.problem_id AND m.journey_id = a.journey_id)
  ), inserted AS (
    INSERT INTO problem_journeys (project_id, problem_id, journey_id, seen_at, release)
    SELECT project_id, problem_id, journey_id, seen_at, release FROM fresh
    RETURNING project_id, problem_id, journey_id, release
  ), released AS (
    INSERT INTO project_releases (project_id, release, first_seen_at)
    SELECT project_id, release, min(received_at) FROM fresh WHERE release IS NOT NULL GROUP BY project_id, release
    ON CONFLICT (project_id, release) DO UPDATE SET first_seen_at = EXCLUDED.first_seen_at
     WHERE project_releases.first_seen_at > EXCLUDED.first_seen_at
  ), moved AS (
    UPDATE problem_journeys m SET seen_at = a.seen_at FROM a
     WHERE m.project_id = a.project_id AND m.problem_id = a.problem_id AND m.journey_id = a.journey_id AND m.seen_at <> a.seen_at
    RETURNING m.project_id, m.problem_id
  )
  SELECT (SELECT array_agg(project_id) FROM inserted), (SELECT array_agg(problem_id) FROM inserted),
         (SELECT array_agg(journey_id) FROM inserted), (SELECT array_agg(release) FROM inserted),
         (SELECT array_agg(project_id) FROM removed), (SELECT array_agg(problem_id) FROM removed),
         (SELECT array_agg(project_id) FROM moved), (SELECT array_agg(problem_id) FROM moved)
    INTO ins_projects, ins_problems, ins_journeys, ins_releases, rem_projects, rem_problems, mov_projects, mov_problems;

  WITH ins AS (
    SELECT * FROM unnest(ins_projects, ins_problems, ins_journeys, ins_releases) AS i(project_id, problem_id, journey_id, release)
  ), touched AS (
    SELECT project_id, problem_id, sum(added)::int AS added, sum(removed)::int AS removed
      FROM (SELECT project_id, problem_id, 1 AS added, 0 AS removed FROM ins
            UNION ALL SELECT project_id, problem_id, 0, 1 FROM unnest(rem_projects, rem_problems) AS r(project_id, problem_id)
            UNION ALL SELECT project_id, problem_id, 0, 0 FROM unnest(mov_projects, mov_problems) AS v(project_id, problem_id)) t
     GROUP BY project_id, problem_id
  ), back AS (
    -- A resolved problem comes back only with a journey that received an event after the
    -- resolution (not one analysed late), and, resolved in the next release, from a newer release.
    -- It came back when that journey's latest event was received (the server's clock, as the resolution's).
    SELECT DISTINCT ON (i.project_id, i.problem_id) i.project_id, i.problem_id, i.release, i.journey_id, latest.at
      FROM ins i JOIN problems p ON p.project_id = i.project_id AND p.id = i.problem_id AND p.status = 'resolved'
      CROSS JOIN LATERAL (SELECT max(e.received_at) AS at FROM event_ids e WHERE e.project_id = i.project_id AND e.journey_id = i.journey_id) latest
     WHERE latest.at > p.resolved_at
       AND (NOT p.resolved_next_release OR EXISTS (
             SELECT 1 FROM project_releases r WHERE r.project_id = i.project_id AND r.release = i.release AND r.first_seen_at > p.resolved_at))
     ORDER BY i.project_id, i.problem_id, latest.at, i.journey_id
  )
  UPDATE problems p
     SET journeys = p.journeys + t.added - t.removed,
         journeys_since_status = p.journeys_since_status + t.added,
         first_seen = (SELECT min(m.seen_at) FROM problem_journeys m WHERE m.project_id = p.project_id AND m.problem_id = p.id),
         last_seen = (SELECT max(m.seen_at) FROM problem_journeys m WHERE m.project_id = p.project_id AND m.problem_id = p.id),
         status = CASE WHEN back.problem_id IS NULL THEN p.status ELSE 'regressed' END,
         status_changed_at = CASE WHEN back.problem_id IS NULL THEN p.status_changed_at ELSE back.at END,
         resolved_at = CASE WHEN back.problem_id IS NULL THEN p.resolved_at END,
         regressed_at = CASE WHEN back.problem_id IS NULL THEN p.regressed_at ELSE back.at END,
         regressed_release = CASE WHEN back.problem_id IS NULL THEN p.regressed_release ELSE back.release END,
         regressed_journey = CASE WHEN back.problem_id IS NULL THEN p.regressed_journey ELSE back.journey_id END
    FROM touched t LEFT JOIN back ON back.project_id = t.project_id AND back.problem_id = t.problem_id
   WHERE p.project_id = t.project_id AND p.id = t.problem_id;
END
$$;

CREATE FUNCTION problems_after_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM problems_apply('{}'::journey_findings[], ARRAY(SELECT n::journey_findings FROM came n));
  RETURN NULL;
END $$;

CREATE FUNCTION problems_after_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM problems_apply(ARRAY(SELECT o::journey_findings FROM gone o), ARRAY(SELECT n::journey_findings FROM came n));
  RETURN NULL;
END $$;

CREATE FUNCTION problems_after_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM problems_apply(ARRAY(SELECT o::journey_findings FROM gone o), '{}'::journey_findings[]);
  RETURN NULL;
END $$;

CREATE TRIGGER journey_findings_problems_insert AFTER INSERT ON journey_findings
  REFERENCING NEW TABLE AS came FOR EACH STATEMENT EXECUTE FUNCTION problems_after_insert();
CREATE TRIGGER journey_findings_problems_update AFTER UPDATE ON journey_findings
  REFERENCING OLD TABLE AS gone NEW TABLE AS came FOR EACH STATEMENT EXECUTE FUNCTION problems_after_update();
CREATE TRIGGER journey_findings_problems_delete AFTER DELETE ON journey_findings
  REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION problems_after_delete();

-- An alert rule of kind regression fires when resolved problems come back (docs/alerts.md).
ALTER TABLE alert_rules DROP CONSTRAINT alert_rules_kind_check;
ALTER TABLE alert_rules ADD CONSTRAINT alert_rules_kind_check
  CHECK (kind IN ('lost', 'changed', 'duplicated', 'failed', 'overdue', 'skipped_step', 'regression'));

-- A status change is a project action with its actor, as a deletion is.
ALTER TABLE audit_log DROP CONSTRAINT audit_log_action_check;
ALTER TABLE audit_log ADD CONSTRAINT audit_log_action_check CHECK (action IN ('journey.deleted', 'erasure.completed',
  'range.deleted', 'replay_destination.created', 'replay_destination.deleted', 'api_key.created', 'api_key.revoked',
  'member.granted', 'member.revoked', 'problem.status_changed'));

-- The findings stored so far make their problems, every one open.
SELECT problems_apply('{}', ARRAY(SELECT f FROM journey_findings f));
