// Accounts, memberships, personal tokens and one-time links: the writes and lists of src/teams.
import { randomUUID } from 'node:crypto';
import type { Queryable } from '../db/pool.ts';
import type { Role } from '../auth/credentials.ts';

export interface UserRow {
  id: string;
  email: string;
  displayName: string;
  state: 'active' | 'disabled';
  owner: boolean;
  hasPassword: boolean;
  createdAt: Date;
  lastSignInAt: Date | null;
}

const USER_COLUMNS = 'id, email, display_name, state, owner, password_hash IS NOT NULL AS has_password, created_at, last_sign_in_at';

type RawUser = { id: string; email: string; display_name: string; state: 'active' | 'disabled'; owner: boolean; has_password: boolean; created_at: Date; last_sign_in_at: Date | null };

function userOf(r: RawUser): UserRow {
  return { id: r.id, email: r.email, displayName: r.display_name, state: r.state, owner: r.owner, hasPassword: r.has_password, createdAt: r.created_at, lastSignInAt: r.last_sign_in_at };
}

/**
 * Null when the e-mail is taken (compared case-insensitively). `invitedInto` names the project
 * whose invitation makes the account (its admins may then issue its links); null otherwise.
 */
export async function insertUser(db: Queryable, input: { email: string; displayName: string; owner: boolean; invitedInto?: string | null }): Promise<UserRow | null> {
  const result = await db.query<RawUser>(
    `INSERT INTO users (id, email, display_name, owner, invited_into) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT ((lower(email))) DO NOTHING RETURNING ${USER_COLUMNS}`,
    [randomUUID(), input.email, input.displayName, input.owner, input.invitedInto ?? null],
  );
  return result.rows[0] ? userOf(result.rows[0]) : null;
}

/** The instance's owners: they act as admin in every project without a role there. */
export async function listOwners(db: Queryable): Promise<UserRow[]> {
  const result = await db.query<RawUser>(`SELECT ${USER_COLUMNS} FROM users WHERE owner ORDER BY lower(email)`);
  return result.rows.map(userOf);
}

export async function listUsers(db: Queryable): Promise<UserRow[]> {
  const result = await db.query<RawUser>(`SELECT ${USER_COLUMNS} FROM users ORDER BY lower(email)`);
  return result.rows.map(userOf);
}

export async function findUserByEmail(db: Queryable, email: string): Promise<UserRow | null> {
  const result = await db.query<RawUser>(`SELECT ${USER_COLUMNS} FROM users WHERE lower(email) = lower($1)`, [email]);
  return result.rows[0] ? userOf(result.rows[0]) : null;
}

export async function findUserById(db: Queryable, id: string): Promise<UserRow | null> {
  const result = await db.query<RawUser>(`SELECT ${USER_COLUMNS} FROM users WHERE id = $1`, [id]);
  return result.rows[0] ? userOf(result.rows[0]) : null;
}

/** The stored hash for sign-in (never leaves src/teams). */
export async function passwordHashOf(db: Queryable, userId: string): Promise<string | null> {
  const result = await db.query<{ password_hash: string | null }>('SELECT password_hash FROM users WHERE id = $1', [userId]);
  return result.rows[0]?.password_hash ?? null;
}

export async function updateUser(db: Queryable, id: string, change: { displayName?: string; state?: 'active' | 'disabled'; owner?: boolean }): Promise<UserRow | null> {
  const result = await db.query<RawUser>(
    `UPDATE users SET display_name = COALESCE($2, display_name), state = COALESCE($3, state), owner = COALESCE($4, owner)
     WHERE id = $1 RETURNING ${USER_COLUMNS}`,
    [id, change.displayName ?? null, change.state ?? null, change.owner ?? null],
  );
  return result.rows[0] ? userOf(result.rows[0]) : null;
}

/** Null clears the password (a reset): the old one stops signing in at once. */
export async function setPasswordHash(db: Queryable, id: string, passwordHash: string | null): Promise<void> {
  await db.query('UPDATE users SET password_hash = $2 WHERE id = $1', [id, passwordHash]);
}

export async function recordSignIn(db: Queryable, id: string, at: Date): Promise<void> {
  await db.query('UPDATE users SET last_sign_in_at = $2 WHERE id = $1', [id, at]);
}

export async function upsertMember(db: Queryable, projectId: string, userId: string, role: Role): Promise<void> {
  await db.query(
    `INSERT INTO project_members (project_id, user_id, role) VALUES ($1, $2, $3)
     ON CONFLICT (project_id, user_id) DO UPDATE SET role = EXCLUDED.role`,
    [projectId, userId, role],
  );
}

export async function deleteMember(db: Queryable, projectId: string, userId: string): Promise<boolean> {
  const result = await db.query('DELETE FROM project_members WHERE project_id = $1 AND user_id = $2', [projectId, userId]);
  return (result.rowCount ?? 0) > 0;
}

export async function rolesOf(db: Queryable, userId: string): Promise<{ projectId: string; slug: string; role: Role }[]> {
  const result = await db.query<{ project_id: string; slug: string; role: Role }>(
    'SELECT m.project_id, p.slug, m.role FROM project_members m JOIN projects p ON p.id = m.project_id WHERE m.user_id = $1 ORDER BY p.slug',
    [userId],
  );
  return result.rows.map((r) => ({ projectId: r.project_id, slug: r.slug, role: r.role }));
}

/** Admins shown per project to members below admin, so they know whom to ask (bounded). */
const ADMINS_SHOWN = 5;

/** The active admins of each project (e-mail, name), at most ADMINS_SHOWN each, by e-mail. */
export async function adminsOf(db: Queryable, projectIds: string[]): Promise<Map<string, { email: string; name: string }[]>> {
  const byProject = new Map<string, { email: string; name: string }[]>();
  if (projectIds.length === 0) return byProject;
  const result = await db.query<{ project_id: string; email: string; display_name: string }>(
    `SELECT project_id, email, display_name FROM (
       SELECT m.project_id, u.email, u.display_name, row_number() OVER (PARTITION BY m.project_id ORDER BY lower(u.email)) AS n
         FROM project_members m JOIN users u ON u.id = m.user_id
        WHERE m.project_id = ANY($1::uuid[]) AND m.role = 'admin' AND u.state = 'active') a
      WHERE n <= $2 ORDER BY project_id, lower(email)`,
    [projectIds, ADMINS_SHOWN],
  );
  for (const r of result.rows) {
    const list = byProject.get(r.project_id) ?? [];
    list.push({ email: r.email, name: r.display_name });
    byProject.set(r.project_id, list);
  }
  return byProject;
}

export async function allProjects(db: Queryable): Promise<{ projectId: string; slug: string }[]> {
  const result = await db.query<{ id: string; slug: string }>('SELECT id, slug FROM projects ORDER BY slug');
  return result.rows.map((r) => ({ projectId: r.id, slug: r.slug }));
}

export interface TokenRow {
  id: string;
  name: string;
  prefix: string;
  createdAt: Date;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
}

export async function insertPersonalToken(
  db: Queryable,
  input: { userId: string; name: string; prefix: string; hash: string; hashKeyId: string; createdAt: Date; expiresAt: Date | null },
): Promise<TokenRow> {
  const id = randomUUID();
  await db.query(
    `INSERT INTO personal_tokens (id, user_id, name, prefix, hash, hash_key_id, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [id, input.userId, input.name, input.prefix, input.hash, input.hashKeyId, input.createdAt, input.expiresAt],
  );
  return { id, name: input.name, prefix: input.prefix, createdAt: input.createdAt, expiresAt: input.expiresAt, lastUsedAt: null };
}

export async function listPersonalTokens(db: Queryable, userId: string): Promise<TokenRow[]> {
  const result = await db.query<{ id: string; name: string; prefix: string; created_at: Date; expires_at: Date | null; last_used_at: Date | null }>(
    'SELECT id, name, prefix, created_at, expires_at, last_used_at FROM personal_tokens WHERE user_id = $1 AND revoked_at IS NULL ORDER BY created_at DESC, id',
    [userId],
  );
  return result.rows.map((r) => ({ id: r.id, name: r.name, prefix: r.prefix, createdAt: r.created_at, expiresAt: r.expires_at, lastUsedAt: r.last_used_at }));
}

/** The revoked token's prefix, or null when the person has no such active token. */
export async function revokePersonalToken(db: Queryable, userId: string, tokenId: string, at: Date): Promise<string | null> {
  const result = await db.query<{ prefix: string }>(
    'UPDATE personal_tokens SET revoked_at = $3 WHERE user_id = $1 AND id = $2 AND revoked_at IS NULL RETURNING prefix',
    [userId, tokenId, at],
  );
  return result.rows[0]?.prefix ?? null;
}

/**
 * Locks the account's row to the transaction: every link issuer takes it first, so a project
 * admin's check of who else holds a link and the replacing of links cannot interleave with an
 * owner's link being issued.
 */
export async function lockUser(db: Queryable, userId: string): Promise<boolean> {
  const result = await db.query('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [userId]);
  return (result.rowCount ?? 0) > 0;
}

/** A token's expiry by its prefix: null for a token without one (or no such token). */
export async function personalTokenExpiry(db: Queryable, prefix: string): Promise<Date | null> {
  const result = await db.query<{ expires_at: Date | null }>('SELECT expires_at FROM personal_tokens WHERE prefix = $1', [prefix]);
  return result.rows[0]?.expires_at ?? null;
}

/** Revokes every live token of the person (a reset, disabling); the prefixes revoked. */
export async function revokeAllPersonalTokens(db: Queryable, userId: string, at: Date): Promise<string[]> {
  const result = await db.query<{ prefix: string }>(
    'UPDATE personal_tokens SET revoked_at = $2 WHERE user_id = $1 AND revoked_at IS NULL RETURNING prefix',
    [userId, at],
  );
  return result.rows.map((r) => r.prefix).sort();
}

export async function insertPasswordLink(
  db: Queryable,
  input: { tokenHash: string; userId: string; purpose: 'invitation' | 'reset'; createdAt: Date; expiresAt: Date; issuedByProject: string | null },
): Promise<void> {
  await lockUser(db, input.userId);
  // A new link replaces the person's unused ones: only the latest works.
  await db.query('UPDATE password_links SET used_at = $2 WHERE user_id = $1 AND used_at IS NULL', [input.userId, input.createdAt]);
  await db.query(
    'INSERT INTO password_links (token_hash, user_id, purpose, created_at, expires_at, issued_by_project) VALUES ($1, $2, $3, $4, $5, $6)',
    [input.tokenHash, input.userId, input.purpose, input.createdAt, input.expiresAt, input.issuedByProject],
  );
}

/** What besides one project has a say over an account's sign-in (docs/roles.md, "Account lifecycle"). */
export interface AccountClaims {
  owner: boolean;
  /** The project whose invitation made the account; null when an owner, the CLI or sign-on did. */
  invitedInto: string | null;
  /** Projects other than the given one where the person holds a role. */
  otherProjects: number;
  /** A live (unused, unexpired) link issued by an owner, the admin token or the CLI. */
  instanceLinkLive: boolean;
}

/** The account's claims as seen from one project; locks the account's row. Null for an unknown account. */
export async function accountClaims(db: Queryable, userId: string, projectId: string, at: Date): Promise<AccountClaims | null> {
  if (!(await lockUser(db, userId))) return null;
  return readAccountClaims(db, userId, projectId, at);
}

/** The claims without the lock: for showing what a list offers (the issuer checks again, locked). */
export async function readAccountClaims(db: Queryable, userId: string, projectId: string, at: Date): Promise<AccountClaims | null> {
  const result = await db.query<{ owner: boolean; invited_into: string | null; other_projects: number; instance_link_live: boolean }>(
    `SELECT u.owner, u.invited_into,
            (SELECT count(*)::int FROM project_members m WHERE m.user_id = u.id AND m.project_id <> $2) AS other_projects,
            EXISTS (SELECT 1 FROM password_links l WHERE l.user_id = u.id AND l.used_at IS NULL AND l.expires_at > $3
                      AND l.issued_by_project IS NULL) AS instance_link_live
       FROM users u WHERE u.id = $1`,
    [userId, projectId, at],
  );
  const r = result.rows[0];
  return r === undefined ? null : { owner: r.owner, invitedInto: r.invited_into, otherProjects: r.other_projects, instanceLinkLive: r.instance_link_live };
}

/** Marks a live link used and returns its user and purpose; null when unknown, used or expired. */
export async function consumePasswordLink(db: Queryable, tokenHash: string, at: Date): Promise<{ userId: string; purpose: 'invitation' | 'reset' } | null> {
  const result = await db.query<{ user_id: string; purpose: 'invitation' | 'reset' }>(
    'UPDATE password_links SET used_at = $2 WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2 RETURNING user_id, purpose',
    [tokenHash, at],
  );
  const row = result.rows[0];
  return row ? { userId: row.user_id, purpose: row.purpose } : null;
}

export async function peekPasswordLink(db: Queryable, tokenHash: string, at: Date): Promise<{ email: string; purpose: string } | null> {
  const result = await db.query<{ email: string; purpose: string }>(
    `SELECT u.email, l.purpose FROM password_links l JOIN users u ON u.id = l.user_id
     WHERE l.token_hash = $1 AND l.used_at IS NULL AND l.expires_at > $2 AND u.state = 'active'`,
    [tokenHash, at],
  );
  return result.rows[0] ?? null;
}

export async function listMembers(db: Queryable, projectId: string): Promise<{ user: UserRow; role: Role }[]> {
  const result = await db.query<RawUser & { role: Role }>(
    `SELECT ${USER_COLUMNS.split(', ').map((c) => (c.includes(' ') ? c.replace('password_hash', 'u.password_hash') : `u.${c}`)).join(', ')}, m.role
     FROM project_members m JOIN users u ON u.id = m.user_id WHERE m.project_id = $1 ORDER BY lower(u.email)`,
    [projectId],
  );
  return result.rows.map((r) => ({ user: userOf(r), role: r.role }));
}

/** With `lock`, the row stays locked to the transaction, so concurrent role changes record their true "before". */
export async function findMemberRole(db: Queryable, projectId: string, userId: string, lock = false): Promise<Role | null> {
  const result = await db.query<{ role: Role }>(`SELECT role FROM project_members WHERE project_id = $1 AND user_id = $2${lock ? ' FOR UPDATE' : ''}`, [projectId, userId]);
  return result.rows[0]?.role ?? null;
}

export interface PendingMember {
  user: UserRow;
  role: Role;
  /** The newest unused link's expiry (it may have passed); null when no unused link is left. */
  linkExpiresAt: Date | null;
}

/**
 * Members who have not joined yet: active, no password and never signed in (single sign-on
 * people sign in without a password, so the sign-in counts too).
 */
export async function listPendingMembers(db: Queryable, projectId: string, userId?: string): Promise<PendingMember[]> {
  const result = await db.query<RawUser & { role: Role; link_expires_at: Date | null }>(
    `SELECT u.id, u.email, u.display_name, u.state, u.owner, false AS has_password, u.created_at, u.last_sign_in_at,
            m.role, l.expires_at AS link_expires_at
       FROM project_members m JOIN users u ON u.id = m.user_id
       LEFT JOIN LATERAL (SELECT expires_at FROM password_links
                           WHERE user_id = u.id AND used_at IS NULL ORDER BY created_at DESC LIMIT 1) l ON true
      WHERE m.project_id = $1 AND u.password_hash IS NULL AND u.last_sign_in_at IS NULL AND u.state = 'active'
        AND ($2::uuid IS NULL OR u.id = $2)
      ORDER BY lower(u.email)`,
    [projectId, userId ?? null],
  );
  return result.rows.map((r) => ({ user: userOf(r), role: r.role, linkExpiresAt: r.link_expires_at }));
}
