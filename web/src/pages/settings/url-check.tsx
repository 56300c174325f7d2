// The replay URL policy, checked as the admin types (POST /v1/replay-destinations/url-check):
// the same rules a save applies, and whether REPLAY_ALLOWED_HOSTS lets replays reach the host.
import { useEffect, useState, type ReactNode } from 'react';
import { request, type Project, type UrlCheckResult } from '../../api.ts';
import { UserText } from '../../components/user-text.tsx';

/** Milliseconds of quiet typing before the address is checked. */
const DEBOUNCE_MS = 300;

export function UrlCheck({ id, project, baseUrl }: { id: string; project: Project; baseUrl: string }) {
  const [result, setResult] = useState<UrlCheckResult | null>(null);
  useEffect(() => {
    if (baseUrl.trim() === '') {
      setResult(null);
      return;
    }
    const controller = new AbortController();
    const timer = setTimeout(() => {
      request<UrlCheckResult>('/v1/replay-destinations/url-check', { method: 'POST', projectId: project.id, body: { baseUrl }, signal: controller.signal }).then(
        setResult,
        () => setResult(null),
      );
    }, DEBOUNCE_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [baseUrl, project.id]);

  let text: ReactNode = null;
  let tone = 'muted';
  if (result && result.problems.length > 0) {
    tone = 'url-problem';
    text = result.problems.map((p) => <span key={p.message}>The base URL {p.message}. </span>);
  } else if (result && result.hostAllowed === false) {
    tone = 'url-warning';
    text = (
      <>
        Its host is not in <code>REPLAY_ALLOWED_HOSTS</code>: it can be saved, but replays to it are blocked until the server allows it.
      </>
    );
  } else if (result) {
    tone = 'url-ok';
    text = (
      <>
        Replays may be sent to <UserText text={result.baseUrl ?? ''} />.
      </>
    );
  }
  return (
    <p id={id} className={`url-check ${tone}`} role="status" aria-live="polite">
      {text}
    </p>
  );
}
