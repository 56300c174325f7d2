-- Alerts on findings (docs/alerts.md). A rule names a finding kind (and optionally a path, entity
-- type and environment) and a threshold: at least threshold_count findings first found within a
-- window of window_minutes. The outbox holds one row per rule, window and notification kind
-- (firing or resolved): the unique key makes "once per rule and window" a constraint, and a row
-- stays pending until a receiver answers 2xx, so a restart or another instance finds it again.

CREATE TABLE alert_rules (
  project_id        uuid        NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  id                uuid        NOT NULL,
  name              text        NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  kind              text        NOT NULL CHECK (kind IN ('lost', 'changed', 'duplicated', 'failed', 'overdue', 'skipped_step')),
  path              text,
  entity_type       text,
  environment_id    uuid,
  threshold_count   integer     NOT NULL CHECK (threshold_count BETWEEN 1 AND 1000000),
  window_minutes    integer     NOT NULL CHECK (window_minutes BETWEEN 1 AND 1440),
  channel           text        NOT NULL CHECK (channel IN ('webhook', 'slack')),
  url               text        NOT NULL,
  -- The signing secret, encrypted like every stored secret; shown once at creation.
  secret_encrypted  text        NOT NULL,
  muted_until       timestamptz,
  state             text        NOT NULL DEFAULT 'ok' CHECK (state IN ('ok', 'firing')),
  created_at        timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, id),
  FOREIGN KEY (project_id, environment_id) REFERENCES environments (project_id, id) ON DELETE CASCADE
);

CREATE TABLE alert_outbox (
  project_id       uuid        NOT NULL,
  id               uuid        NOT NULL,
  rule_id          uuid        NOT NULL,
  window_start     timestamptz NOT NULL,
  notification     text        NOT NULL CHECK (notification IN ('firing', 'resolved')),
  body             jsonb       NOT NULL,
  status           text        NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed')),
  attempts         integer     NOT NULL DEFAULT 0,
  next_attempt_at  timestamptz NOT NULL DEFAULT now(),
  created_at       timestamptz NOT NULL DEFAULT now(),
  sent_at          timestamptz,
  PRIMARY KEY (project_id, id),
  UNIQUE (project_id, rule_id, window_start, notification),
  FOREIGN KEY (project_id, rule_id) REFERENCES alert_rules (project_id, id) ON DELETE CASCADE
);
CREATE INDEX alert_outbox_due ON alert_outbox (next_attempt_at) WHERE status = 'pending';

-- One row per attempt: the delivery log of a rule.
CREATE TABLE alert_deliveries (
  project_id    uuid        NOT NULL,
  id            bigint      GENERATED ALWAYS AS IDENTITY,
  outbox_id     uuid        NOT NULL,
  rule_id       uuid        NOT NULL,
  attempt       integer     NOT NULL,
  outcome       text        NOT NULL CHECK (outcome IN ('sent', 'error_status', 'failed', 'blocked', 'gave_up')),
  status_code   integer,
  error         text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, id),
  FOREIGN KEY (project_id, outbox_id) REFERENCES alert_outbox (project_id, id) ON DELETE CASCADE
);
CREATE INDEX alert_deliveries_rule ON alert_deliveries (project_id, rule_id, id DESC);
