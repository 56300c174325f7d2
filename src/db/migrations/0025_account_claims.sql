-- Who may hand out an account's sign-in. A project admin could invite the e-mail of an account an
-- owner had made (no password, no role yet), ask for a new link, set the password and so take the
-- account, voiding the owner's link. Project admins now issue links only for accounts their own
-- project's invitation made, and never replace a live link an owner issued; both facts are kept
-- here rather than inferred from the audit trails on every request.

-- The project whose invitation made the account; null when an owner, the admin token, the CLI or
-- single sign-on made it (then only those instance-wide hands issue its links).
ALTER TABLE users ADD COLUMN invited_into uuid REFERENCES projects (id) ON DELETE SET NULL;

-- The project whose admin issued the link; null when an owner, the admin token or the CLI did
-- (such a link is never replaced by a project admin while it is live).
ALTER TABLE password_links ADD COLUMN issued_by_project uuid REFERENCES projects (id) ON DELETE SET NULL;

-- Accounts made by an invitation before this migration: the invitation wrote user.created and
-- member.granted in one transaction, so both rows carry the same transaction time. Links issued
-- before it stay null (an owner's), the cautious reading: a project admin waits for them to expire.
UPDATE users u SET invited_into = g.project_id
  FROM account_audit_log c, audit_log g
 WHERE c.action = 'user.created' AND c.subject_user_id = u.id
   AND g.action = 'member.granted' AND g.details ->> 'userId' = u.id::text
   AND g.created_at = c.created_at;
