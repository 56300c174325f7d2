import { useEffect, useRef, useState, type FormEvent } from 'react';
import { ApiError, request, type PasswordSignInRequest, type SignInRequest } from '../api.ts';
import { navigate, useLocation } from '../router.tsx';

export function SignInPage({ onSignedIn }: { onSignedIn: () => void }) {
  const loc = useLocation();
  const [token, setToken] = useState('');
  const [message, setMessage] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const [singleSignOn, setSingleSignOn] = useState(false);
  useEffect(() => {
    request<{ singleSignOn: boolean }>('/sign-in-options', { quietUnauthorized: true }).then((data) => setSingleSignOn(data.singleSignOn), () => undefined);
  }, []);
  useEffect(() => {
    document.title = 'Sign in · jtrace';
    // People sign in with their e-mail day to day; the admin token is the break-glass way.
    document.getElementById('email')?.focus();
  }, []);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setMessage(null);
    try {
      await request('/session', { method: 'POST', body: { token: token.trim() } satisfies SignInRequest, quietUnauthorized: true });
      onSignedIn();
      const next = loc.params.get('next');
      navigate(next && next.startsWith('/ui/') && !next.startsWith('//') ? next : '/', { replace: true });
    } catch (error) {
      if (error instanceof ApiError && error.code === 'too_many_attempts') {
        const wait = error.retryAfterSeconds;
        setMessage(`Too many failed attempts from this address. Try again ${wait ? `in ${wait} seconds` : 'later'}.`);
      } else if (error instanceof ApiError && error.status === 401) {
        setMessage('That token was not accepted. Check the admin token and try again.');
      } else {
        setMessage(error instanceof Error ? error.message : 'Sign-in failed.');
      }
      setToken('');
      input.current?.focus();
    } finally {
      setBusy(false);
    }
  };

  return (
    <main className="centered sign-in">
      <h1>Sign in to jtrace</h1>
      {loc.params.get('password') === 'set' ? (
        <p role="status" className="notice">
          Your password is set. Sign in with your e-mail and the new password.
        </p>
      ) : null}
      {loc.params.get('sso') === 'refused' ? (
        <p className="error-message" role="alert">
          Single sign-on did not sign you in: your account may be disabled, your e-mail unverified, or not invited.
        </p>
      ) : null}
      {singleSignOn ? (
        <p>
          <a className="button-link" href="/ui/api/oidc/start">
            Continue with single sign-on
          </a>
        </p>
      ) : null}
      <PasswordSignIn onSignedIn={() => {
        onSignedIn();
        const next = loc.params.get('next');
        navigate(next && next.startsWith('/ui/') && !next.startsWith('//') ? next : '/', { replace: true });
      }} />
      <form onSubmit={submit} className="card">
        <label htmlFor="token">Admin token</label>
        <input
          ref={input}
          id="token"
          name="token"
          type="password"
          autoComplete="current-password"
          required
          value={token}
          onChange={(event) => setToken(event.target.value)}
          aria-describedby="token-help"
        />
        <p id="token-help" className="muted">
          {/* The folder itself is not shown before sign-in: a server path is not for anyone who can reach this page. */}
          The server's <code>ADMIN_TOKEN</code>. With the embedded database, <code>npm start</code> prints where it is
          stored: <code>secrets.env</code> in the data folder (<code>JTRACE_DATA_DIR</code>, <code>.data</code> unless set).
        </p>
        {message ? (
          <p className="error-message" role="alert">
            {message}
          </p>
        ) : null}
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
    </main>
  );
}

/** A person's sign-in with e-mail and password (docs/roles.md). */
function PasswordSignIn({ onSignedIn }: { onSignedIn: () => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [message, setMessage] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setMessage(null);
    try {
      await request('/session/password', { method: 'POST', body: { email: email.trim(), password } satisfies PasswordSignInRequest, quietUnauthorized: true });
      onSignedIn();
    } catch (error) {
      if (error instanceof ApiError && error.code === 'too_many_attempts') {
        const wait = error.retryAfterSeconds;
        setMessage(`Too many failed sign-ins. Try again ${wait ? `in ${wait} seconds` : 'later'}.`);
      } else if (error instanceof ApiError && error.status === 401) {
        setMessage('That e-mail and password were not accepted.');
      } else {
        setMessage(error instanceof Error ? error.message : 'Sign-in failed.');
      }
      setPassword('');
    } finally {
      setBusy(false);
    }
  };
  return (
    <form onSubmit={submit} className="card">
      <label htmlFor="email">E-mail</label>
      <input id="email" name="email" type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />
      <label htmlFor="password">Password</label>
      <input id="password" name="password" type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
      {message ? (
        <p className="error-message" role="alert">
          {message}
        </p>
      ) : null}
      <button type="submit" disabled={busy}>
        Continue with password
      </button>
    </form>
  );
}
