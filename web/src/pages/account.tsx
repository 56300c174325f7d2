// The signed-in person's own personal access tokens and sessions (docs/roles.md): make a token
// (shown once), revoke one, end a session elsewhere.
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import type { z } from 'zod';
import type { createdTokenSchema, personalTokenSchema, userSessionSchema } from '../../../src/http/answer-schemas/teams.ts';
import { request } from '../api.ts';
import { ErrorMessage, Loading } from '../components/common.tsx';
import { SecretOnce } from '../components/secret-once.tsx';
import { UserText } from '../components/user-text.tsx';
import { formatTime } from '../lib/format.ts';
import { useAction } from '../lib/use-action.ts';
import { useSessionInfo } from '../roles.tsx';

type Token = z.output<typeof personalTokenSchema>;
type CreatedToken = z.output<typeof createdTokenSchema>;
type UserSession = z.output<typeof userSessionSchema>;

export function AccountPage() {
  const session = useSessionInfo();
  const [tokens, setTokens] = useState<Token[] | null>(null);
  const [sessions, setSessions] = useState<UserSession[] | null>(null);
  const [created, setCreated] = useState<CreatedToken | null>(null);
  const [error, setError] = useState<unknown>(null);
  const person = session?.user ?? null;
  const load = useCallback(() => {
    if (!person) return;
    request<{ items: Token[] }>('/v1/me/tokens').then((data) => setTokens(data.items), setError);
    request<{ items: UserSession[] }>('/v1/me/sessions').then((data) => setSessions(data.items), setError);
  }, [person]);
  useEffect(() => {
    document.title = 'Your account · jtrace';
    load();
  }, [load]);
  const act = useAction();

  if (!person) {
    return (
      <>
        <h1>Your account</h1>
        <p>You are signed in with the admin token: it has no personal tokens or sessions of its own.</p>
      </>
    );
  }
  const create = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const name = String(new FormData(form).get('name') ?? '').trim();
    void act.run(async () => {
      setCreated(await request<CreatedToken>('/v1/me/tokens', { method: 'POST', body: { name } }));
      form.reset();
      load();
    });
  };
  const revoke = (token: Token) => void act.run(async () => {
    await request(`/v1/me/tokens/${token.id}`, { method: 'DELETE' });
    load();
  });
  const end = (s: UserSession) => void act.run(async () => {
    await request(`/v1/me/sessions/${s.id}`, { method: 'DELETE' });
    load();
  });

  return (
    <>
      <h1>Your account</h1>
      <p>
        <UserText text={person.name === '' ? person.email : `${person.name} (${person.email})`} />
        {person.owner ? ', an owner of this instance' : ''}
      </p>
      <ErrorMessage error={error ?? act.error} />
      <h2>Personal access tokens</h2>
      <p className="muted">A token acts as you on the API (Authorization: Bearer), with your roles at the time of each request.</p>
      <form className="card settings-form" onSubmit={create} aria-label="New personal token">
        <label htmlFor="token-name">Name</label>
        <input id="token-name" name="name" required maxLength={200} />
        <div>
          <button type="submit" disabled={act.busy}>
            Create token
          </button>
        </div>
      </form>
      {created ? (
        <SecretOnce
          id="new-token"
          heading={<>Your new token “<UserText text={created.token.name} />”</>}
          warning={<strong>Copy it now: it will not be shown again.</strong>}
          label="Personal token"
          value={created.secret}
          copyLabel="Copy token"
          onDone={() => setCreated(null)}
        />
      ) : null}
      {!tokens ? (
        <Loading what="tokens" />
      ) : tokens.length === 0 ? (
        <p className="muted">No personal token.</p>
      ) : (
        <table className="settings-table stack">
          <caption>Your tokens</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Prefix</th>
              <th scope="col">Created</th>
              <th scope="col">Expires</th>
              <th scope="col">Last used</th>
              <th scope="col"><span className="visually-hidden">Actions</span></th>
            </tr>
          </thead>
          <tbody>
            {tokens.map((t) => (
              <tr key={t.id}>
                <td data-label="Name"><UserText text={t.name} /></td>
                <td data-label="Prefix"><code>{t.prefix}</code></td>
                <td data-label="Created">{formatTime(t.createdAt)}</td>
                <td data-label="Expires">{t.expiresAt === null ? 'never' : formatTime(t.expiresAt)}</td>
                <td data-label="Last used">{t.lastUsedAt === null ? 'never' : formatTime(t.lastUsedAt)}</td>
                <td className="cell-actions">
                  <button type="button" className="danger small" disabled={act.busy} onClick={() => revoke(t)}>
                    Revoke <span className="visually-hidden"><UserText text={t.name} /></span>
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h2>Sessions</h2>
      {!sessions ? (
        <Loading what="sessions" />
      ) : (
        <table className="settings-table stack">
          <caption>Where you are signed in</caption>
          <thead>
            <tr>
              <th scope="col">Signed in</th>
              <th scope="col">Last seen</th>
              <th scope="col">Address</th>
              <th scope="col">Browser</th>
              <th scope="col"><span className="visually-hidden">Actions</span></th>
            </tr>
          </thead>
          <tbody>
            {sessions.map((s) => (
              <tr key={s.id}>
                <td data-label="Signed in">{formatTime(s.createdAt)}</td>
                <td data-label="Last seen">{formatTime(s.lastSeenAt)}</td>
                <td data-label="Address"><UserText text={s.client} /></td>
                <td data-label="Browser"><UserText text={s.userAgent} /></td>
                <td className="cell-actions">
                  {s.current ? (
                    'this browser'
                  ) : (
                    <button type="button" className="small" disabled={act.busy} onClick={() => end(s)}>
                      End session
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
