// What owners and admins do to accounts and memberships, shared by the HTTP routes and the CLI
// (docs/roles.md). Each change commits with its audit row.
import { createHash, randomBytes } from 'node:crypto';
import { writeAccountAudit, writeAudit, type AuditActor } from '../audit/audit-log.ts';
import { recordSettingsChange } from '../audit/settings-history.ts';
import { endAllUserSessions } from '../auth/user-sessions.ts';
import type { Role } from '../auth/credentials.ts';
import { withTransaction, type Pool, type PoolClient } from '../db/pool.ts';
import { AppError, errors } from '../http/errors.ts';
import { hashPassword, passwordProblem } from './passwords.ts';
import {
  consumePasswordLink,
  deleteMember,
  findMemberRole,
  findUserById,
  insertPasswordLink,
  insertUser,
  revokeAllPersonalTokens,
  setPasswordHash,
  updateUser,
  upsertMember,
  type UserRow,
} from './users-sql.ts';

/** One-time links live 72 hours and work once. */
export const PASSWORD_LINK_LIFETIME_MS = 72 * 3_600_000;
export const MAX_EMAIL_LENGTH = 254;
export const MAX_DISPLAY_NAME_LENGTH = 200;
/** Where the interface's set-password page is; the token rides in the fragment, which no server or log sees. */
export const SET_PASSWORD_PATH = '/ui/set-password';

// Deliberately loose: one @, something on both sides, a dot in the domain, no white space.
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function checkEmail(email: string): string {
  const trimmed = email.trim();
  if (trimmed.length > MAX_EMAIL_LENGTH || !EMAIL.test(trimmed) || trimmed.includes('\u0000')) {
    throw errors.invalidRequest('email', `The e-mail address is not valid (at most ${MAX_EMAIL_LENGTH} characters).`);
  }
  return trimmed;
}

const linkHash = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

export interface PasswordLink {
  /** The secret part: shown once to whoever made the link. */
  token: string;
  /** The path to open on the jtrace address, token included. */
  path: string;
  expiresAt: Date;
}

/**
 * A new link for the account, replacing its unused ones. `issuedByProject` names the project
 * whose admin issues it; null for an owner, the admin token or the CLI, whose live links no
 * project admin may replace.
 */
export async function makeLink(
  client: Parameters<typeof insertPasswordLink>[0],
  userId: string,
  purpose: 'invitation' | 'reset',
  nowMs: number,
  issuedByProject: string | null = null,
): Promise<PasswordLink> {
  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(nowMs + PASSWORD_LINK_LIFETIME_MS);
  await insertPasswordLink(client, { tokenHash: linkHash(token), userId, purpose, createdAt: new Date(nowMs), expiresAt, issuedByProject });
  return { token, path: `${SET_PASSWORD_PATH}#token=${token}`, expiresAt };
}

export interface CreatedUser {
  user: UserRow;
  /** The invitation, unless a password was given. */
  link: PasswordLink | null;
}

export async function createUser(
  pool: Pool,
  input: { email: string; displayName?: string; owner?: boolean; password?: string; invite?: boolean },
  actor: AuditActor | { kind: 'none'; clientAddress?: string | null },
  nowMs: number,
): Promise<CreatedUser> {
  const email = checkEmail(input.email);
  const displayName = (input.displayName ?? '').trim();
  if (displayName.length > MAX_DISPLAY_NAME_LENGTH || displayName.includes('\u0000')) {
    throw errors.invalidRequest('name', `The name must have at most ${MAX_DISPLAY_NAME_LENGTH} characters.`);
  }
  let passwordHash: string | null = null;
  if (input.password !== undefined) {
    const problem = passwordProblem(input.password, email);
    if (problem !== null) throw errors.invalidRequest('password', problem);
    passwordHash = await hashPassword(input.password);
  }
  return withTransaction(pool, async (client) => {
    const user = await insertUser(client, { email, displayName, owner: input.owner === true });
    if (user === null) throw new AppError('email_taken', 'A user with this e-mail address exists.');
    if (passwordHash !== null) await setPasswordHash(client, user.id, passwordHash);
    await writeAccountAudit(client, 'user.created', user.id, { userId: user.id, email: user.email, owner: user.owner }, actor);
    const link = passwordHash === null && input.invite !== false ? await makeLink(client, user.id, 'invitation', nowMs) : null;
    return { user: { ...user, hasPassword: passwordHash !== null }, link };
  });
}

/**
 * Ends every credential the person made for themselves: sessions (rows deleted) and personal
 * tokens (revoked, each with its token.revoked row). A reset, a new password and disabling do
 * this, so enabling the account again or the old password's holder revives none of them.
 */
async function endCredentials(client: PoolClient, userId: string, actor: AuditActor | { kind: 'none'; clientAddress?: string | null }, nowMs: number): Promise<void> {
  await endAllUserSessions(client, userId);
  for (const tokenPrefix of await revokeAllPersonalTokens(client, userId, new Date(nowMs))) {
    await writeAccountAudit(client, 'token.revoked', userId, { tokenPrefix }, actor);
  }
}

export async function changeUser(
  pool: Pool,
  userId: string,
  change: { displayName?: string; state?: 'active' | 'disabled'; owner?: boolean },
  actor: AuditActor,
  nowMs: number,
): Promise<UserRow> {
  return withTransaction(pool, async (client) => {
    const before = await findUserById(client, userId);
    if (before === null) throw errors.notFound('The user was not found.');
    const after = await updateUser(client, userId, change);
    if (after === null) throw errors.notFound('The user was not found.');
    if (before.state !== after.state) {
      await writeAccountAudit(client, after.state === 'disabled' ? 'user.disabled' : 'user.enabled', userId, { userId, email: after.email }, actor);
      // Sessions and tokens are refused from the next request on anyway; they end for good, so
      // enabling the account again does not bring them back.
      if (after.state === 'disabled') await endCredentials(client, userId, actor, nowMs);
    }
    return after;
  });
}

/**
 * A reset link for an existing person (password.reset): their password, sessions and personal
 * tokens end now, so whoever held the old password cannot sign in again and make new ones.
 */
export async function resetPassword(pool: Pool, userId: string, actor: AuditActor, nowMs: number): Promise<PasswordLink> {
  return withTransaction(pool, async (client) => {
    const user = await findUserById(client, userId);
    if (user === null) throw errors.notFound('The user was not found.');
    await writeAccountAudit(client, 'password.reset', userId, { userId, email: user.email }, actor);
    await setPasswordHash(client, userId, null);
    await endCredentials(client, userId, actor, nowMs);
    return makeLink(client, userId, 'reset', nowMs);
  });
}

/** Sets the password a one-time link allows; every session of the person ends. */
export async function setPasswordWithLink(pool: Pool, token: string, password: string, nowMs: number): Promise<UserRow> {
  const refused = () => new AppError('not_found', 'The link is unknown, used or expired; ask for a new one.');
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) throw refused();
  const hashed = linkHash(token);
  return withTransaction(pool, async (client) => {
    const link = await consumePasswordLink(client, hashed, new Date(nowMs));
    if (link === null) throw refused();
    const user = await findUserById(client, link.userId);
    if (user === null || user.state !== 'active') throw refused();
    const problem = passwordProblem(password, user.email);
    // Thrown inside the transaction: the link stays unused and may be tried again.
    if (problem !== null) throw errors.invalidRequest('password', problem);
    await setPasswordHash(client, user.id, await hashPassword(password));
    await endCredentials(client, user.id, { kind: 'none', clientAddress: null }, nowMs);
    return { ...user, hasPassword: true };
  });
}

export async function grantRole(pool: Pool, projectId: string, userId: string, role: Role, actor: AuditActor): Promise<void> {
  await withTransaction(pool, async (client) => {
    const user = await findUserById(client, userId);
    if (user === null) throw errors.notFound('The user was not found.');
    const before = await findMemberRole(client, projectId, userId, true);
    await upsertMember(client, projectId, userId, role);
    await writeAudit(client, projectId, 'member.granted', { userId, email: user.email, role }, actor);
    // A new role for a member is a settings change: the history keeps what it was.
    if (before !== null && before !== role) {
      await recordSettingsChange(client, projectId, { action: 'member.role_changed', subject: user.email, before: { role: before }, after: { role } }, actor);
    }
  });
}

/** False when the person held no role in the project. */
export async function revokeRole(pool: Pool, projectId: string, userId: string, actor: AuditActor): Promise<boolean> {
  return withTransaction(pool, async (client) => {
    const removed = await deleteMember(client, projectId, userId);
    if (removed) await writeAudit(client, projectId, 'member.revoked', { userId }, actor);
    return removed;
  });
}
