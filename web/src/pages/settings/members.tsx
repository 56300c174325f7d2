// The members of a project (project admins): invite a person by e-mail with a role (the one-time
// link is shown here, to be sent by whoever invites: jtrace sends no mail), change a role, remove
// someone, and see who has not joined yet with their link's expiry, re-issuing a link.
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { request, type InvitationRequest, type InvitedMember, type Member, type PasswordLinkAnswer, type PendingMember, type Project } from '../../api.ts';
import { ErrorMessage, Loading } from '../../components/common.tsx';
import { UserText } from '../../components/user-text.tsx';
import { formatTime } from '../../lib/format.ts';
import type { Role } from '../../roles.tsx';
import { ConfirmDialog } from './confirm-dialog.tsx';
import { useAction } from '../../lib/use-action.ts';

const ROLE_TEXT: Record<Role, string> = {
  viewer: 'viewer: reads journeys',
  operator: 'operator: also replays and deletes',
  admin: 'admin: also keys, destinations and members',
};
const ROLES = Object.keys(ROLE_TEXT) as Role[];

/** An owner as the members route lists them: a user, no role of their own here. */
type Owner = Omit<Member, 'role'>;

export function SettingsMembersPage({ project }: { project: Project }) {
  const [members, setMembers] = useState<Member[] | null>(null);
  // The instance's owners act as admin here without a role; listed so the page shows everyone with access.
  const [owners, setOwners] = useState<Owner[]>([]);
  const [pending, setPending] = useState<PendingMember[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [status, setStatus] = useState('');
  const [removing, setRemoving] = useState<Member | null>(null);
  const base = `/v1/projects/${project.id}`;
  const load = useCallback(() => {
    request<{ items: Member[]; owners: Owner[] }>(`${base}/members`).then((data) => {
      setMembers(data.items);
      setOwners(data.owners.filter((owner) => !data.items.some((member) => member.id === owner.id)));
    }, setError);
    request<{ items: PendingMember[] }>(`${base}/invitations`).then((data) => setPending(data.items), setError);
  }, [base]);
  useEffect(() => {
    document.title = `Members · ${project.name} · Settings · jtrace`;
    load();
  }, [load, project.name]);

  const changeRole = async (member: Member, role: Role) => {
    setError(null);
    try {
      await request(`${base}/members/${member.id}`, { method: 'PUT', body: { role } });
      setStatus(`${member.email} is now ${role}.`);
    } catch (e) {
      setError(e);
    }
    load();
  };

  return (
    <>
      <h2>Members</h2>
      <Invite project={project} onInvited={load} />
      <ErrorMessage error={error} />
      <p role="status" className="muted">
        <UserText text={status} />
      </p>
      {!members ? (
        <Loading what="members" />
      ) : members.length === 0 && owners.length === 0 ? (
        <p className="muted">No one holds a role in this project yet. Owners act as admins everywhere.</p>
      ) : (
        <table className="settings-table stack members">
          <caption>People with a role in this project</caption>
          <thead>
            <tr>
              <th scope="col">E-mail</th>
              <th scope="col">Name</th>
              <th scope="col">Role</th>
              <th scope="col">State</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {members.map((member) => (
              <tr key={member.id}>
                <td data-label="E-mail">
                  <UserText text={member.email} />
                </td>
                <td data-label="Name">
                  <UserText text={member.name} />
                </td>
                <td data-label="Role">
                  <select aria-label={`Role of ${member.email}`} value={member.role} onChange={(e) => void changeRole(member, e.target.value as Role)}>
                    {ROLES.map((role) => (
                      <option key={role} value={role}>
                        {role}
                      </option>
                    ))}
                  </select>
                </td>
                <td data-label="State">{stateOf(member)}</td>
                <td className="cell-actions">
                  <button type="button" className="danger small" onClick={() => setRemoving(member)}>
                    Remove… <span className="visually-hidden">{member.email}</span>
                  </button>
                </td>
              </tr>
            ))}
            {owners.map((owner) => (
              <tr key={owner.id}>
                <td data-label="E-mail">
                  <UserText text={owner.email} />
                </td>
                <td data-label="Name">
                  <UserText text={owner.name} />
                </td>
                <td data-label="Role">owner (every project)</td>
                <td data-label="State">{owner.state}</td>
                <td className="cell-actions" />
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pending base={base} pending={pending} />
      <ConfirmDialog
        open={removing !== null}
        title={
          <>
            Remove <UserText text={removing?.email ?? ''} /> from <UserText text={project.name} />?
          </>
        }
        action="Remove member"
        onConfirm={async () => {
          await request(`${base}/members/${removing!.id}`, { method: 'DELETE' });
          setStatus(`${removing!.email} was removed.`);
          load();
        }}
        onClose={() => setRemoving(null)}
      >
        <p>They lose their {removing?.role} role here from their next request on. Their account and their roles in other projects stay.</p>
      </ConfirmDialog>
    </>
  );
}

function stateOf(member: Member): string {
  if (member.state === 'disabled') return 'disabled';
  if (!member.hasPassword && member.lastSignInAt === null) return 'invited';
  return 'active';
}

function Invite({ project, onInvited }: { project: Project; onInvited: () => void }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const [answer, setAnswer] = useState<InvitedMember | null>(null);
  const { busy, error, run } = useAction();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setAnswer(null);
    void run(async () => {
      const body: InvitationRequest = { email: email.trim(), role };
      setAnswer(await request<InvitedMember>(`/v1/projects/${project.id}/invitations`, { method: 'POST', body }));
      setEmail('');
      onInvited();
    });
  };
  return (
    <form onSubmit={submit} className="card settings-form invite" aria-labelledby="invite-heading">
      <h3 id="invite-heading">Invite a person</h3>
      <label htmlFor="invite-email">E-mail</label>
      <input id="invite-email" type="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
      <label htmlFor="invite-role">Role</label>
      <select id="invite-role" value={role} onChange={(e) => setRole(e.target.value as Role)}>
        {ROLES.map((r) => (
          <option key={r} value={r}>
            {ROLE_TEXT[r]}
          </option>
        ))}
      </select>
      <div>
        <button type="submit" disabled={busy}>
          Invite
        </button>
      </div>
      <ErrorMessage error={error} />
      {answer?.link ? <LinkToSend link={answer.link} className="invite-link" /> : null}
      {answer && !answer.link ? (
        <p role="status">
          <UserText text={answer.member.email} /> already had an account: they now hold {answer.member.role} here and sign in as they do.
        </p>
      ) : null}
    </form>
  );
}

function LinkToSend({ link, className }: { link: PasswordLinkAnswer; className: string }) {
  return (
    <p role="status">
      Send this one-time link to the person (it works once, until {formatTime(link.expiresAt)}): <output className={className}>{location.origin + link.url}</output>
    </p>
  );
}

function Pending({ base, pending }: { base: string; pending: PendingMember[] | null }) {
  const [links, setLinks] = useState<Record<string, PasswordLinkAnswer>>({});
  const [error, setError] = useState<unknown>(null);
  const reissue = async (person: PendingMember) => {
    setError(null);
    try {
      const link = await request<PasswordLinkAnswer>(`${base}/invitations/${person.id}`, { method: 'POST' });
      setLinks((current) => ({ ...current, [person.id]: link }));
    } catch (e) {
      setError(e);
    }
  };
  return (
    <section aria-labelledby="pending-heading">
      <h3 id="pending-heading">Pending invitations</h3>
      <ErrorMessage error={error} />
      {!pending ? (
        <Loading what="invitations" />
      ) : pending.length === 0 ? (
        <p className="muted">Everyone invited has joined.</p>
      ) : (
        <table className="settings-table stack pending">
          <caption>Invited, no password set and never signed in</caption>
          <thead>
            <tr>
              <th scope="col">E-mail</th>
              <th scope="col">Role</th>
              <th scope="col">Link</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {pending.map((person) => {
              const fresh = links[person.id];
              return (
                <tr key={person.id}>
                  <th scope="row" data-label="E-mail">
                    <UserText text={person.email} />
                  </th>
                  <td data-label="Role">{person.role}</td>
                  <td data-label="Link">
                    {fresh ? (
                      <LinkToSend link={fresh} className="reissued-link" />
                    ) : person.linkExpiresAt === null ? (
                      'no link left'
                    ) : person.linkExpired ? (
                      <>expired {formatTime(person.linkExpiresAt)}</>
                    ) : (
                      <>valid until {formatTime(person.linkExpiresAt)}</>
                    )}
                  </td>
                  <td className="cell-actions">
                    {/* The server says whose link this admin may issue (docs/roles.md, "Account lifecycle"). */}
                    {person.canIssueLink ? (
                      <button type="button" className="small" onClick={() => void reissue(person)}>
                        New link <span className="visually-hidden">for {person.email}</span>
                      </button>
                    ) : (
                      <span className="muted">an owner issues the link</span>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </section>
  );
}
