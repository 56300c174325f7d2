// The runs already sent for this event: when, where, the result, the headers sent (destination
// values redacted as stored) and the comparison with the recorded output, newest first.
import { useEffect, useState } from 'react';
import { request, type ReplayRun } from '../api.ts';
import { formatDuration, formatPreciseTime } from '../lib/format.ts';
import { ErrorMessage } from './common.tsx';
import { DiffTable } from './diff-table.tsx';
import { HeadersTable } from './headers-table.tsx';
import { UserText } from './user-text.tsx';

export function ReplayHistory({ projectId, eventId, revision }: { projectId: string; eventId: string; revision: string | null }) {
  const [runs, setRuns] = useState<ReplayRun[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    setError(null);
    request<{ items: ReplayRun[] }>(`/v1/events/${encodeURIComponent(eventId)}/replays`, { projectId }).then((data) => setRuns(data.items), setError);
  }, [projectId, eventId, revision]);
  if (error) return <ErrorMessage error={error} />;
  if (!runs || runs.length === 0) return null;
  return (
    <section className="replay-history" aria-labelledby="replay-history-heading">
      <h4 id="replay-history-heading">Runs already sent ({runs.length === 20 ? 'latest 20' : runs.length})</h4>
      <ul>
        {runs.map((run) => (
          <li key={run.id}>
            <details>
              <summary>
                {formatPreciseTime(run.createdAt)} · <code>{run.method} <UserText text={run.path} /></code> · {run.status}
                {run.responseStatus !== null ? ` · ${run.responseStatus}` : ''} · {formatDuration(run.durationMs)}
              </summary>
              {run.error ? (
                <p className="error-message">
                  <UserText text={run.error} />
                </p>
              ) : null}
              <HeadersTable headers={run.requestHeaders} caption="Headers sent" />
              {run.comparison === null ? (
                <p className="muted">No comparison: the run did not complete or the event recorded no output.</p>
              ) : (
                <DiffTable rows={run.comparison} caption="Compared with the recorded output" beforeLabel="Recorded" afterLabel="Replayed" />
              )}
            </details>
          </li>
        ))}
      </ul>
    </section>
  );
}
