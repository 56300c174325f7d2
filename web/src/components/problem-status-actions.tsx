// A problem's status actions (docs/problems.md, "Statuses"), for the roles that may change it
// (operator and above, from the session's allowed actions). Hiding a problem from the lists
// (ignore, expected) is confirmed first; every change is announced.
import { useRef, useState, type FormEvent } from 'react';
import { request, type Problem, type ProblemDetail } from '../api.ts';
import { useAction } from '../lib/use-action.ts';
import { useAllowed } from '../roles.tsx';
import { ErrorMessage } from './common.tsx';

type Change = { status: 'open' | 'resolved' | 'ignored' | 'expected'; inNextRelease?: boolean; until?: string; moreJourneys?: number };

const ANNOUNCED: Record<Change['status'], string> = {
  open: 'Reopened: the problem is open.',
  resolved: 'Resolved: it reopens as regressed if it happens again.',
  ignored: 'Ignored: the problem leaves the default list.',
  expected: 'Marked expected: the problem is no longer listed or alerted.',
};

export function ProblemStatusActions({ projectId, problem, onChanged }: { projectId: string; problem: ProblemDetail; onChanged: (p: Problem) => void }) {
  if (!useAllowed(projectId, 'problems.triage')) return null;
  return <Actions projectId={projectId} problem={problem} onChanged={onChanged} />;
}

function Actions({ projectId, problem, onChanged }: { projectId: string; problem: ProblemDetail; onChanged: (p: Problem) => void }) {
  const { busy, error, run } = useAction();
  const [done, setDone] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<Change | null>(null);
  const dialog = useRef<HTMLDialogElement>(null);
  const [ignoreFor, setIgnoreFor] = useState<'good' | 'until' | 'journeys'>('good');

  const send = (change: Change) =>
    run(async () => {
      setDone(null);
      const updated = await request<Problem>(`/v1/projects/${projectId}/problems/${problem.id}`, { method: 'PATCH', body: change });
      dialog.current?.close();
      setConfirming(null);
      setDone(ANNOUNCED[change.status]);
      onChanged(updated);
    });
  const confirm = (change: Change) => {
    setConfirming(change);
    dialog.current?.showModal();
  };
  const ignore = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const change: Change = { status: 'ignored' };
    if (ignoreFor === 'until') {
      const value = String(form.get('until') ?? '');
      const at = value ? new Date(value) : null;
      if (at && !Number.isNaN(at.getTime())) change.until = at.toISOString();
    } else if (ignoreFor === 'journeys') {
      change.moreJourneys = Number(form.get('moreJourneys'));
    }
    confirm(change);
  };

  const closed = problem.status !== 'open';
  return (
    <section className="problem-actions" aria-labelledby="problem-actions-heading">
      <h2 id="problem-actions-heading">Status</h2>
      <div className="button-row">
        {problem.status !== 'resolved' ? (
          <>
            <button type="button" disabled={busy} onClick={() => void send({ status: 'resolved' })}>
              Resolve
            </button>
            <button type="button" disabled={busy} onClick={() => void send({ status: 'resolved', inNextRelease: true })}>
              Resolve in the next release
            </button>
          </>
        ) : null}
        {problem.status !== 'expected' ? (
          <button type="button" disabled={busy} onClick={() => confirm({ status: 'expected' })}>
            Mark expected…
          </button>
        ) : null}
        {closed ? (
          <button type="button" disabled={busy} onClick={() => void send({ status: 'open' })}>
            Reopen
          </button>
        ) : null}
      </div>
      {problem.status !== 'ignored' ? (
        <form className="ignore-form" aria-label="Ignore the problem" onSubmit={ignore}>
          <fieldset>
            <legend>Ignore</legend>
            <label>
              <input type="radio" name="for" checked={ignoreFor === 'good'} onChange={() => setIgnoreFor('good')} /> for good
            </label>
            <label>
              <input type="radio" name="for" checked={ignoreFor === 'until'} onChange={() => setIgnoreFor('until')} /> until
            </label>
            {ignoreFor === 'until' ? (
              <label>
                Date
                <input type="datetime-local" name="until" required />
              </label>
            ) : null}
            <label>
              <input type="radio" name="for" checked={ignoreFor === 'journeys'} onChange={() => setIgnoreFor('journeys')} /> for N more journeys
            </label>
            {ignoreFor === 'journeys' ? (
              <label>
                Journeys
                <input type="number" name="moreJourneys" min={1} max={1_000_000} step={1} defaultValue={10} required />
              </label>
            ) : null}
            <button type="submit" disabled={busy}>
              Ignore…
            </button>
          </fieldset>
        </form>
      ) : null}
      {done ? (
        <p role="status" className="notice">
          {done}
        </p>
      ) : null}
      {!confirming ? <ErrorMessage error={error} /> : null}
      <dialog ref={dialog} aria-labelledby="problem-confirm-heading" className="confirm" onClose={() => setConfirming(null)}>
        <h2 id="problem-confirm-heading">{confirming?.status === 'expected' ? 'Mark the problem expected?' : 'Ignore the problem?'}</h2>
        <p>
          {confirming?.status === 'expected'
            ? 'It leaves the list, the summary and every alert: the step changes this on purpose. Reopen it to list it again.'
            : confirming?.until
              ? `It leaves the default list and alerts until ${new Date(confirming.until).toLocaleString()}.`
              : confirming?.moreJourneys
                ? `It leaves the default list and alerts until ${confirming.moreJourneys} more journeys have it.`
                : 'It leaves the default list and alerts for good, until someone reopens it.'}
        </p>
        {confirming ? <ErrorMessage error={error} /> : null}
        <div className="dialog-actions">
          <button type="button" autoFocus onClick={() => dialog.current?.close()}>
            Cancel
          </button>
          <button type="button" className="danger" disabled={busy} onClick={() => confirming && void send(confirming)}>
            {confirming?.status === 'expected' ? 'Mark expected' : 'Ignore'}
          </button>
        </div>
      </dialog>
    </section>
  );
}
