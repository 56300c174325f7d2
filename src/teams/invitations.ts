// Inviting people into a project, from Settings (docs/roles.md). A project admin may invite into
// their own project with any project role (at most admin) and never makes an owner; whoever
// invites gets the one-time link to send (jtrace sends no mail). Links are the account's whole
// sign-in, so a project admin issues them only for accounts their project's invitation made and
// no one else has a claim on (docs/roles.md, "Account lifecycle").
import { writeAccountAudit, writeAudit, type AuditActor } from '../audit/audit-log.ts';
import type { Role } from '../auth/credentials.ts';
import { withTransaction, type Pool } from '../db/pool.ts';
import { AppError, errors } from '../http/errors.ts';
import { MAX_DISPLAY_NAME_LENGTH, checkEmail, makeLink, type PasswordLink } from './accounts.ts';
import { accountClaims, findMemberRole, type AccountClaims, findUserByEmail, insertUser, listPendingMembers, upsertMember, type UserRow } from './users-sql.ts';

export interface InvitedMember {
  user: UserRow;
  role: Role;
  /** The invitation to send; null when the e-mail already had an account (they sign in as they do). */
  link: PasswordLink | null;
}

/** Who issues a link: owners, the admin token and the CLI act for the whole instance. */
export interface Issuer {
  instanceWide: boolean;
}

/**
 * Gives the person with this e-mail a role in the project: a new account (made by this project's
 * invitation) with an invitation link, or an existing account added as it is, with no link and
 * no claim on its sign-in. Someone already in the project is 409 already_member (their role is
 * changed on the member's row, which keeps its history).
 */
export async function inviteMember(
  pool: Pool,
  projectId: string,
  input: { email: string; name?: string; role: Role },
  actor: AuditActor,
  issuer: Issuer,
  nowMs: number,
): Promise<InvitedMember> {
  const email = checkEmail(input.email);
  const displayName = (input.name ?? '').trim();
  if ([...displayName].length > MAX_DISPLAY_NAME_LENGTH || displayName.includes('\u0000')) {
    throw errors.invalidRequest('name', `The name must have at most ${MAX_DISPLAY_NAME_LENGTH} characters.`);
  }
  return withTransaction(pool, async (client) => {
    let user = await findUserByEmail(client, email);
    let link: PasswordLink | null = null;
    if (user === null) {
      user = await insertUser(client, { email, displayName, owner: false, invitedInto: projectId });
      // Another request made the account between the read and the insert.
      if (user === null) throw new AppError('email_taken', 'A user with this e-mail address was created meanwhile; try again.');
      await writeAccountAudit(client, 'user.created', user.id, { userId: user.id, email: user.email, owner: false }, actor);
      link = await makeLink(client, user.id, 'invitation', nowMs, issuer.instanceWide ? null : projectId);
    } else if ((await findMemberRole(client, projectId, user.id)) !== null) {
      throw new AppError('already_member', 'This person already holds a role in the project; change it on their row.');
    }
    await upsertMember(client, projectId, user.id, input.role);
    await writeAudit(client, projectId, 'member.granted', { userId: user.id, email: user.email, role: input.role }, actor);
    return { user, role: input.role, link };
  });
}

/** Whether the issuer may give the account a new link (the rule below; the members page shows it). */
export function mayIssueLink(claims: AccountClaims, projectId: string, issuer: Issuer): boolean {
  return issuer.instanceWide || !(claims.owner || claims.invitedInto !== projectId || claims.otherProjects > 0 || claims.instanceLinkLive);
}

/**
 * A new invitation link for a member who has not joined yet; older links stop working. The link
 * signs in as the whole account and a project admin speaks for their project only, so a project
 * admin may issue it only when the project's own invitation made the account, and the person is
 * no owner, holds no role elsewhere and has no live link from an owner (which it would void).
 * Owners and the admin token may always.
 */
export async function reissueInvitation(pool: Pool, projectId: string, userId: string, actor: AuditActor, issuer: Issuer, nowMs: number): Promise<PasswordLink> {
  return withTransaction(pool, async (client) => {
    // Locks the account first: an owner issuing a link meanwhile waits, or is seen.
    const claims = await accountClaims(client, userId, projectId, new Date(nowMs));
    const [pending] = await listPendingMembers(client, projectId, userId);
    if (claims === null || pending === undefined) throw errors.notFound('No pending invitation for this person in the project.');
    if (!mayIssueLink(claims, projectId, issuer)) {
      throw new AppError('forbidden', 'This account is not the project\'s alone (an owner made it, it holds roles elsewhere or an owner issued its link): an owner issues its link.');
    }
    await writeAccountAudit(client, 'invitation.reissued', userId, { userId, email: pending.user.email }, actor);
    return makeLink(client, userId, 'invitation', nowMs, issuer.instanceWide ? null : projectId);
  });
}
