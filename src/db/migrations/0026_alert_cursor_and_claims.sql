-- Alert evaluation catches up, and deliveries are claimed (docs/alerts.md). A rule only looked at
-- the window current at each pass, so a window that passed while the dispatcher was stopped or
-- stalled was never evaluated and its alert never sent. evaluated_until is the end of the last
-- window whose count is final, and evaluated_state the rule's state (ok or firing) at that point:
-- each pass walks the windows from there to the current one, the same way whatever it missed.
-- Rules that exist start at their current window, as before, rather than alerting on their past.
--
-- Deliveries now run concurrently and may outlive the advisory lock of the instance that started
-- them. A send claims its row first (claim, and next_attempt_at moved past the send's deadline):
-- another instance cannot send it while the claim stands, only its claimer records the outcome,
-- and a claim whose holder died lapses, so the notification is sent again rather than lost.

ALTER TABLE alert_rules
  ADD COLUMN evaluated_until timestamptz,
  ADD COLUMN evaluated_state text NOT NULL DEFAULT 'ok' CHECK (evaluated_state IN ('ok', 'firing'));

UPDATE alert_rules
   SET evaluated_until = to_timestamp(floor(extract(epoch FROM now()) / (window_minutes * 60)) * (window_minutes * 60)),
       evaluated_state = state;

ALTER TABLE alert_outbox ADD COLUMN claim uuid;
