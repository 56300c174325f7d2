// The project's members (project admins) and, for owners and the admin token, inviting a person:
// the one-time link is shown here, to be sent by whoever invites (jtrace sends no mail).
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { request, type CreatedUser, type Member, type Project } from '../api.ts';
import { ErrorMessage, Loading } from '../components/common.tsx';
import { UserText } from '../components/user-text.tsx';
import { useIsOwner, type Role } from '../roles.tsx';

export function MembersPage({ project }: { project: Project }) {
  const [members, setMembers] = useState<Member[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const load = useCallback(() => {
    request<{ items: Member[] }>(`/v1/projects/${project.id}/members`).then((data) => setMembers(data.items), setError);
  }, [project.id]);
  useEffect(() => {
    document.title = `Members · ${project.name} · jtrace`;
    load();
  }, [load, project.name]);

  const remove = async (member: Member) => {
    await request(`/v1/projects/${project.id}/members/${member.id}`, { method: 'DELETE' }).catch(setError);
    load();
  };

  return (
    <>
      <h1>Members</h1>
      {error ? <ErrorMessage error={error} /> : null}
      {useIsOwner() ? <Invite project={project} onInvited={load} /> : null}
      {!members ? (
        <Loading what="members" />
      ) : members.length === 0 ? (
        <p className="muted">No one holds a role in this project yet.</p>
      ) : (
        <table className="members">
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
                <td>
                  <UserText text={member.email} />
                </td>
                <td>
                  <UserText text={member.name} />
                </td>
                <td>{member.role}</td>
                <td>{member.state}</td>
                <td>
                  <button type="button" className="link-button" onClick={() => void remove(member)}>
                    Remove <span className="visually-hidden">{member.email}</span>
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

function Invite({ project, onInvited }: { project: Project; onInvited: () => void }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const [link, setLink] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    setLink(null);
    try {
      const created = await request<CreatedUser>('/v1/users', { method: 'POST', body: { email: email.trim() } });
      await request(`/v1/projects/${project.id}/members/${created.user.id}`, { method: 'PUT', body: { role } });
      if (created.link) setLink(location.origin + created.link.url);
      setEmail('');
      onInvited();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form onSubmit={submit} className="card invite" aria-label="Invite a person">
      <h2>Invite a person</h2>
      <label htmlFor="invite-email">E-mail</label>
      <input id="invite-email" type="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
      <label htmlFor="invite-role">Role</label>
      <select id="invite-role" value={role} onChange={(e) => setRole(e.target.value as Role)}>
        <option value="viewer">viewer: reads journeys</option>
        <option value="operator">operator: also replays and deletes</option>
        <option value="admin">admin: also destinations and members</option>
      </select>
      <button type="submit" disabled={busy}>
        Invite
      </button>
      {error ? <ErrorMessage error={error} /> : null}
      {link ? (
        <p role="status">
          Send this one-time link to the person (valid 72 hours, works once): <output className="invite-link">{link}</output>
        </p>
      ) : null}
    </form>
  );
}
