-- AUDIT_RETENTION_DAYS: the retention sweep deletes audit, settings-history and account rows
-- older than the cut-off in batches, and the audit log lists them newest first across projects.
-- Both read by age, so each trail gets an index on its creation time.
CREATE INDEX audit_log_created ON audit_log (created_at);
CREATE INDEX settings_changes_created ON settings_changes (created_at);
CREATE INDEX account_audit_log_created ON account_audit_log (created_at);
