-- Problem keys once per problem, not once per finding (docs/benchmarks.md, "Findings: why the
-- analyzer does not keep up yet"): computing problem_id_of (an md5 of the quoted key) for each of
-- a batch's 3,500 findings took 44 ms of the 99 ms its findings' statement spent keeping problems,
-- and those findings share a few dozen problems. Same rows and ids as 0036's problems_apply.

CREATE OR REPLACE FUNCTION problems_apply(gone journey_findings[], came journey_findings[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  ins_projects uuid[]; ins_problems uuid[]; ins_journeys text[]; ins_releases text[]; ins_seen timestamptz[];
  rem_projects uuid[]; rem_problems uuid[]; mov_projects uuid[]; mov_problems uuid[];
BEGIN
  IF cardinality(gone) = 0 AND cardinality(came) = 0 THEN RETURN; END IF;
  -- The keys of the new rows, computed once (md5 per problem) for the problems and their journeys.
  -- The problems inserted here are checked by problem_journeys' foreign key at the statement's end.
  WITH raw AS MATERIALIZED (
    -- problem_keys' columns without the id: what a finding's problem is made of.
    SELECT row_number() OVER () AS n, r.project_id, r.environment_id, r.journey_id, r.observed_at, k.kind, k.path,
           k.ss AS step_service, k.sn AS step_name, k.fs AS from_service, k.fn AS from_name, k.t AS in_transit, k.ev AS event_id, k.i AS ordinal
      FROM unnest(came) r,
           LATERAL (SELECT u.kind, u.path, r.step_services[u.s] AS ss, r.step_names[u.s] AS sn,
                           CASE WHEN u.t OR u.kind = 'overdue' THEN r.step_services[u.f] END AS fs,
                           CASE WHEN u.t OR u.kind = 'overdue' THEN r.step_names[u.f] END AS fn,
                           u.t, COALESCE(r.step_ids[u.s], r.step_ids[u.f]) AS ev, u.i
                      FROM unnest(r.kind, r.path, r.step_at, r.in_transit, r.from_at) WITH ORDINALITY AS u(kind, path, s, t, f, i)) k
  ), ids AS (
    -- The id once per problem, not once per finding: a batch's findings share few problems.
    -- GROUP BY takes NULLs as equal, as the id (quote_nullable) does.
    SELECT problem_id_of(project_id, environment_id, kind, path, step_service, step_name, from_service, from_name, in_transit) AS problem_id,
           array_agg(n) AS members
      FROM raw GROUP BY project_id, environment_id, kind, path, step_service, step_name, from_service, from_name, in_transit
  ), kc AS MATERIALIZED (
    SELECT raw.project_id, raw.environment_id, raw.journey_id, raw.observed_at, ids.problem_id, raw.event_id, raw.ordinal, raw.kind, raw.path,
           raw.step_service, raw.step_name, raw.from_service, raw.from_name, raw.in_transit
      FROM ids CROSS JOIN LATERAL unnest(ids.members) AS m(n) JOIN raw ON raw.n = m.n
  ), created AS (
    INSERT INTO problems (project_id, id, environment_id, kind, path, step_service, step_name, from_service, from_name, in_transit)
    SELECT DISTINCT project_id, problem_id, environment_id, kind, path, step_service, step_name, from_service, from_name, in_transit FROM kc
    ON CONFLICT (project_id, id) DO NOTHING
  ), b AS (
    SELECT DISTINCT r.project_id, k.problem_id, r.journey_id FROM unnest(gone) r, LATERAL problem_keys(r) k
  ), a AS (
    -- A journey with a problem at several steps: the latest one's event gives the release.
    SELECT DISTINCT ON (project_id, problem_id, journey_id) project_id, problem_id, journey_id, observed_at AS seen_at, event_id
      FROM kc ORDER BY project_id, problem_id, journey_id, ordinal DESC
  ), removed AS (
    DELETE FROM problem_journeys m USING b
     WHERE m.project_id = b.project_id AND m.problem_id = b.problem_id AND m.journey_id = b.journey_id
       AND NOT EXISTS (SELECT 1 FROM a WHERE a.project_id = b.project_id AND a.problem_id = b.problem_id AND a.journey_id = b.journey_id)
    RETURNING m.project_id, m.problem_id
  ), ev AS (
    -- Each event once (a journey's findings share few), by event_ids' primary key then the one
    -- partition its receipt names: LIMIT 1 keeps the lookup a parameterized index probe per event.
    SELECT d.project_id, d.event_id, x.release, x.received_at
      FROM (SELECT DISTINCT project_id, event_id FROM a WHERE event_id IS NOT NULL) d
      CROSS JOIN LATERAL (
        SELECT COALESCE(NULLIF(e.deployment_metadata->>'version', ''), NULLIF(e.deployment_metadata->>'gitCommit', '')) AS release, e.received_at
          FROM event_ids i JOIN events e ON e.project_id = i.project_id AND e.id = i.id AND e.received_at = i.received_at
         WHERE i.project_id = d.project_id AND i.id = d.event_id LIMIT 1) x
  ), inserted AS (
    -- A journey already counted conflicts on the primary key (its arbiter index, whatever the
    -- statistics say; a lookup by problem could otherwise walk the problem's every journey).
    INSERT INTO problem_journeys (project_id, problem_id, journey_id, seen_at, release)
    SELECT a.project_id, a.problem_id, a.journey_id, a.seen_at, ev.release
      FROM a LEFT JOIN ev ON ev.project_id = a.project_id AND ev.event_id = a.event_id
    ON CONFLICT (project_id, problem_id, journey_id) DO NOTHING
    RETURNING project_id, problem_id, journey_id, release, seen_at
  ), released AS (
    INSERT INTO project_releases (project_id, release, first_seen_at)
    SELECT i.project_id, i.release, min(ev.received_at)
      FROM inserted i JOIN a ON a.project_id = i.project_id AND a.problem_id = i.problem_id AND a.journey_id = i.journey_id
      JOIN ev ON ev.project_id = a.project_id AND ev.event_id = a.event_id
     WHERE i.release IS NOT NULL GROUP BY i.project_id, i.release
    ON CONFLICT (project_id, release) DO UPDATE SET first_seen_at = EXCLUDED.first_seen_at
     WHERE project_releases.first_seen_at > EXCLUDED.first_seen_at
  ), shifted AS (
    -- Journeys whose seen time changed: only their problem journeys can move (none on an insert).
    SELECT n.project_id, n.journey_id, n.observed_at FROM unnest(came) n JOIN unnest(gone) o ON o.project_id = n.project_id AND o.journey_id = n.journey_id
     WHERE o.observed_at <> n.observed_at
  ), moved AS (
    UPDATE problem_journeys m SET seen_at = s.observed_at FROM shifted s JOIN a ON a.project_id = s.project_id AND a.journey_id = s.journey_id
     WHERE m.project_id = a.project_id AND m.problem_id = a.problem_id AND m.journey_id = a.journey_id AND m.seen_at <> a.seen_at
    RETURNING m.project_id, m.problem_id
  )
  SELECT (SELECT array_agg(project_id) FROM inserted), (SELECT array_agg(problem_id) FROM inserted),
         (SELECT array_agg(journey_id) FROM inserted), (SELECT array_agg(release) FROM inserted), (SELECT array_agg(seen_at) FROM inserted),
         (SELECT array_agg(project_id) FROM removed), (SELECT array_agg(problem_id) FROM removed),
         (SELECT array_agg(project_id) FROM moved), (SELECT array_agg(problem_id) FROM moved)
    INTO ins_projects, ins_problems, ins_journeys, ins_releases, ins_seen, rem_projects, rem_problems, mov_projects, mov_problems;
  IF ins_projects IS NULL AND rem_projects IS NULL AND mov_projects IS NULL THEN RETURN; END IF;

  -- One update per problem: journeys added only move first and last seen outwards; a removed or
  -- moved one may have held either, so only then are they read back (problem_journeys_seen).
  WITH ins AS (
    SELECT * FROM unnest(ins_projects, ins_problems, ins_journeys, ins_releases) AS i(project_id, problem_id, journey_id, release)
  ), touched AS (
    SELECT project_id, problem_id, sum(added)::int AS added, sum(removed)::int AS removed, bool_or(reread) AS reread,
           min(seen_at) AS first_added, max(seen_at) AS last_added
      FROM (SELECT project_id, problem_id, 1 AS added, 0 AS removed, false AS reread, seen_at
              FROM unnest(ins_projects, ins_problems, ins_seen) AS i(project_id, problem_id, seen_at)
            UNION ALL SELECT project_id, problem_id, 0, 1, true, NULL FROM unnest(rem_projects, rem_problems) AS r(project_id, problem_id)
            UNION ALL SELECT project_id, problem_id, 0, 0, true, NULL FROM unnest(mov_projects, mov_problems) AS v(project_id, problem_id)) t
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
         first_seen = CASE WHEN t.reread THEN (SELECT min(m.seen_at) FROM problem_journeys m WHERE m.project_id = p.project_id AND m.problem_id = p.id)
                           ELSE LEAST(p.first_seen, t.first_added) END,
         last_seen = CASE WHEN t.reread THEN (SELECT max(m.seen_at) FROM problem_journeys m WHERE m.project_id = p.project_id AND m.problem_id = p.id)
                          ELSE GREATEST(p.last_seen, t.last_added) END,
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
