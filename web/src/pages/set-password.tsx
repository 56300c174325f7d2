// The page of a one-time invitation or reset link: /ui/set-password#token=... (the token stays in
// the fragment, which the browser never sends to a server).
import { useEffect, useState, type FormEvent } from 'react';
import { ApiError, request, type SetPasswordRequest } from '../api.ts';
import { navigate } from '../router.tsx';

export function SetPasswordPage() {
  const [token] = useState(() => new URLSearchParams(location.hash.slice(1)).get('token') ?? '');
  const [password, setPassword] = useState('');
  const [again, setAgain] = useState('');
  const [message, setMessage] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    document.title = 'Set your password · jtrace';
  }, []);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (password !== again) {
      setMessage('The two passwords differ.');
      return;
    }
    setBusy(true);
    setMessage(null);
    try {
      await request('/password-links', { method: 'POST', body: { token, password } satisfies SetPasswordRequest, quietUnauthorized: true });
      navigate('/sign-in?password=set', { replace: true });
    } catch (error) {
      setMessage(error instanceof ApiError && error.status === 404 ? 'This link is unknown, used or expired. Ask for a new one.' : error instanceof Error ? error.message : 'The password was not set.');
    } finally {
      setBusy(false);
    }
  };

  return (
    <main className="centered sign-in">
      <h1>Set your password</h1>
      <form onSubmit={submit} className="card">
        <label htmlFor="new-password">New password</label>
        <input id="new-password" type="password" autoComplete="new-password" required minLength={12} maxLength={128} value={password} onChange={(e) => setPassword(e.target.value)} aria-describedby="password-rules" />
        <p id="password-rules" className="muted">
          12 to 128 characters. A few unusual words make a good one.
        </p>
        <label htmlFor="repeat-password">Repeat it</label>
        <input id="repeat-password" type="password" autoComplete="new-password" required value={again} onChange={(e) => setAgain(e.target.value)} />
        {message ? (
          <p className="error-message" role="alert">
            {message}
          </p>
        ) : null}
        <button type="submit" disabled={busy || token === ''}>
          Set password
        </button>
      </form>
    </main>
  );
}
