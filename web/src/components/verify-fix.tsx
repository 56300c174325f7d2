// Verify a fix (docs/problems.md, "Verifying a fix by replay"): replay the problem's recorded
// inputs to a development destination and count, per journey, whether the field is now kept.
// Operators and above; a server without the batch replay routes answers 404 and the section
// stays away.
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { API_BASE, ApiError, query, request, type Destination, type Page, type ProblemDetail, type ProblemReplayBatch, type ProblemReplayResult, type ReplayVerdict } from '../api.ts';
import { showBidiControls } from '../lib/bidi.ts';
import { formatTime } from '../lib/format.ts';
import { useAction } from '../lib/use-action.ts';
import { useAllowed } from '../roles.tsx';
import { Link } from '../router.tsx';
import { ErrorMessage } from './common.tsx';
import { UserText } from './user-text.tsx';

/** The contract's bounds of a batch (journeys 1..1000, default 50). */
const DEFAULT_JOURNEYS = 50;
const MAX_JOURNEYS = 1000;
/** How often a running batch is read again. */
const POLL_MS = 1000;
const RESULTS_SHOWN = 100;

const VERDICTS: Record<ReplayVerdict, string> = { pending: 'pending', kept: 'kept', still_lost: 'still lost', failed: 'failed' };

export function VerifyFix({ projectId, problem }: { projectId: string; problem: ProblemDetail }) {
  const sends = useAllowed(projectId, 'replay.send');
  const lists = useAllowed(projectId, 'destinations.read');
  if (!sends || !lists || (problem.kind !== 'lost' && problem.kind !== 'changed')) return null;
  return <VerifyPanel projectId={projectId} problem={problem} />;
}

function VerifyPanel({ projectId, problem }: { projectId: string; problem: ProblemDetail }) {
  const base = `/v1/projects/${projectId}`;
  const [available, setAvailable] = useState<boolean | null>(null);
  const [batch, setBatch] = useState<ProblemReplayBatch | null>(null);
  const [destinations, setDestinations] = useState<Destination[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const { busy, error: actionError, run } = useAction();

  useEffect(() => {
    const controller = new AbortController();
    request<Page<ProblemReplayBatch>>(`${base}/problems/${problem.id}/replays` + query({ limit: 1 }), { signal: controller.signal }).then(
      (page) => {
        setAvailable(true);
        setBatch(page.items[0] ?? null);
      },
      (e: unknown) => {
        if (controller.signal.aborted) return;
        // No batch replay routes on this server: nothing to offer.
        if (e instanceof ApiError && e.status === 404) setAvailable(false);
        else setError(e);
      },
    );
    request<{ items: Destination[] }>('/v1/replay-destinations', { projectId, signal: controller.signal }).then((data) => setDestinations(data.items), (e: unknown) => {
      if (!controller.signal.aborted) setError(e);
    });
    return () => controller.abort();
  }, [base, problem.id, projectId]);

  // A running batch is read again until it is done or cancelled.
  const batchId = batch?.id;
  const running = batch?.status === 'running';
  useEffect(() => {
    if (!batchId || !running) return;
    const timer = setInterval(() => {
      request<ProblemReplayBatch>(`${base}/problem-replays/${batchId}`).then(setBatch, setError);
    }, POLL_MS);
    return () => clearInterval(timer);
  }, [base, batchId, running]);

  const start = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    void run(async () => {
      const body = { destinationId: String(form.get('destinationId')), journeys: Number(form.get('journeys')) };
      setBatch(await request<ProblemReplayBatch>(`${base}/problems/${problem.id}/replays`, { method: 'POST', body }));
    });
  };
  const cancel = () => void run(async () => setBatch(await request<ProblemReplayBatch>(`${base}/problem-replays/${batchId}/cancel`, { method: 'POST' })));

  if (available !== true) return error ? <ErrorMessage error={error} /> : null;
  return (
    <section className="verify-fix" aria-labelledby="verify-heading">
      <h2 id="verify-heading">Verify a fix</h2>
      <p className="muted">
        Replays the recorded input of {problem.inTransit ? 'the step the value left' : 'the step'} for the problem’s latest journeys to a development
        destination, and checks whether {problem.kind === 'lost' ? 'the answer keeps' : 'the answer leaves unchanged'} <code><UserText text={problem.path ?? ''} /></code>.
      </p>
      <ErrorMessage error={error} />
      {destinations && destinations.length === 0 ? <p>No replay destination yet: an admin adds one in Settings, Replay destinations.</p> : null}
      {destinations && destinations.length > 0 ? (
        <form className="verify-form" aria-label="Verify a fix" onSubmit={start}>
          <label>
            Destination
            <select name="destinationId" required>
              {destinations.map((d) => (
                <option key={d.id} value={d.id}>
                  {showBidiControls(d.name)} ({d.environmentType})
                </option>
              ))}
            </select>
          </label>
          <label>
            Journeys
            <input type="number" name="journeys" min={1} max={MAX_JOURNEYS} step={1} defaultValue={DEFAULT_JOURNEYS} required />
          </label>
          <button type="submit" disabled={busy || running}>
            Start
          </button>
        </form>
      ) : null}
      <ErrorMessage error={actionError} />
      {batch ? <BatchView base={base} projectId={projectId} batch={batch} busy={busy} onCancel={cancel} /> : null}
    </section>
  );
}

function BatchView({ base, projectId, batch, busy, onCancel }: { base: string; projectId: string; batch: ProblemReplayBatch; busy: boolean; onCancel: () => void }) {
  const [results, setResults] = useState<Page<ProblemReplayResult> | null>(null);
  const [error, setError] = useState<unknown>(null);
  const load = useCallback(() => {
    request<Page<ProblemReplayResult>>(`${base}/problem-replays/${batch.id}/results` + query({ limit: RESULTS_SHOWN })).then(setResults, setError);
  }, [base, batch.id]);
  // Read again as journeys finish.
  useEffect(load, [load, batch.completed, batch.status]);

  const { kept, stillLost, failed } = batch.counts;
  return (
    <div className="batch" aria-label="Latest verification">
      <p role="status">
        {batch.status === 'running' ? 'Replaying' : batch.status === 'cancelled' ? 'Cancelled' : 'Done'}: {batch.completed} of {batch.requested} journeys to{' '}
        <UserText text={batch.destinationName} />, started {formatTime(batch.createdAt)}.
      </p>
      <progress max={batch.requested} value={batch.completed} aria-label="Journeys replayed">
        {batch.completed} of {batch.requested}
      </progress>
      <ul className="verdict-counts" aria-label="Verdicts">
        <li className="verdict-kept">
          <strong>{kept}</strong> kept
        </li>
        <li className="verdict-still_lost">
          <strong>{stillLost}</strong> still lost
        </li>
        <li className="verdict-failed">
          <strong>{failed}</strong> failed
        </li>
      </ul>
      <div className="button-row">
        {batch.status === 'running' ? (
          <button type="button" disabled={busy} onClick={onCancel}>
            Cancel
          </button>
        ) : null}
        <a href={`${API_BASE}${base}/problem-replays/${batch.id}/results?format=csv`} download={`jtrace-verification-${batch.id}.csv`}>
          Export CSV
        </a>
      </div>
      <ErrorMessage error={error} />
      {results && results.items.length > 0 ? (
        <table className="verdicts stack">
          <caption>Journeys replayed{results.nextCursor ? `, the first ${results.items.length}` : ''}</caption>
          <thead>
            <tr>
              <th scope="col">Journey</th>
              <th scope="col">Verdict</th>
              <th scope="col">Replay</th>
            </tr>
          </thead>
          <tbody>
            {results.items.map((result) => (
              <tr key={result.journeyId}>
                <td>
                  <Link to={`/projects/${projectId}/journeys/${encodeURIComponent(result.journeyId)}`}>
                    <UserText text={result.journeyId} />
                  </Link>
                </td>
                <td data-label="Verdict">
                  <span className={`verdict verdict-${result.verdict}`}>{VERDICTS[result.verdict]}</span>
                  {result.error ? (
                    <div className="sub">
                      <UserText text={result.error.message} />
                    </div>
                  ) : null}
                </td>
                <td data-label="Replay">{result.replayId ? <code>{result.replayId}</code> : <span className="muted">—</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </div>
  );
}
