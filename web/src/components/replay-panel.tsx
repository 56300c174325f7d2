// Replay: choose a destination, method and path; see exactly what will be sent; send; compare.
import { useEffect, useState, type FormEvent } from 'react';
import { request, type Destination, type EventDetail, type Project, type NewDestinationRequest, type ReplayPreview, type ReplayRequest, type ReplayRun } from '../api.ts';
import { formatDuration, formatJson } from '../lib/format.ts';
import { Command, EmptyState, ErrorMessage } from './common.tsx';
import { DiffTable } from './diff-table.tsx';
import { HeadersTable } from './headers-table.tsx';
import { ReplayHistory } from './replay-history.tsx';
import { UserText } from './user-text.tsx';
import { showBidiControls } from '../lib/bidi.ts';
import { useAction } from '../lib/use-action.ts';

type Method = NonNullable<ReplayRequest['method']>;

export function ReplayPanel({ project, event }: { project: Project; event: EventDetail }) {
  const [destinations, setDestinations] = useState<Destination[] | null>(null);
  const [destinationId, setDestinationId] = useState('');
  const [method, setMethod] = useState<Method>('POST');
  const [path, setPath] = useState('/');
  const [preview, setPreview] = useState<ReplayPreview | null>(null);
  const [run, setRun] = useState<ReplayRun | null>(null);
  const { busy, error, setError, run: act } = useAction();
  const options = { projectId: project.id };

  const loadDestinations = () =>
    request<{ items: Destination[] }>('/v1/replay-destinations', options).then((data) => {
      const items = data.items.filter((d) => !d.disabled);
      setDestinations(items);
      setDestinationId((current) => current || items[0]?.id || '');
    }, setError);

  useEffect(() => {
    void loadDestinations();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [project.id]);
  useEffect(() => {
    setPreview(null);
    setRun(null);
  }, [event.id, destinationId, method, path]);

  const body = (): ReplayRequest => ({ eventId: event.id, destinationId, method, path });
  const showPreview = (e: FormEvent) => {
    e.preventDefault();
    void act(async () => setPreview(await request<ReplayPreview>('/v1/replays/preview', { ...options, method: 'POST', body: body() })));
  };
  const send = () => act(async () => setRun(await request<ReplayRun>('/v1/replays', { ...options, method: 'POST', body: body(), dataStatuses: [422] })));

  if (destinations === null) return <ErrorMessage error={error} />;
  return (
    <section className="replay" aria-labelledby="replay-heading">
      <h3 id="replay-heading">Replay this event</h3>
      {destinations.length === 0 ? (
        <NoDestination project={project} onCreated={loadDestinations} />
      ) : (
        <form className="replay-form" onSubmit={showPreview}>
          <label>
            Destination
            <select value={destinationId} onChange={(e) => setDestinationId(e.target.value)}>
              {destinations.map((d) => (
                <option key={d.id} value={d.id}>
                  {showBidiControls(`${d.name} (${d.baseUrl})`)}
                </option>
              ))}
            </select>
          </label>
          <label>
            Method
            <select value={method} onChange={(e) => setMethod(e.target.value as Method)}>
              <option>POST</option>
              <option>PUT</option>
              <option>PATCH</option>
            </select>
          </label>
          <label>
            Path
            <input value={path} onChange={(e) => setPath(e.target.value)} size={24} />
          </label>
          <button type="submit" disabled={busy}>
            Preview
          </button>
        </form>
      )}
      <ErrorMessage error={error} />
      <ReplayHistory projectId={project.id} eventId={event.id} revision={run?.id ?? null} />
      {preview ? (
        <div className="preview" role="region" aria-label="What will be sent">
          <h4>What will be sent</h4>
          <p>
            <code>
              {preview.method} <UserText text={preview.url} />
            </code>
          </p>
          <HeadersTable headers={preview.headers} caption="Headers" />
          <pre tabIndex={0}>{formatBody(preview.body)}</pre>
          <button type="button" onClick={send} disabled={busy}>
            Send replay
          </button>
        </div>
      ) : null}
      {run ? <ReplayResult run={run} /> : null}
    </section>
  );
}

/** The body is the exact text to be sent; JSON text is shown indented for reading. */
function formatBody(body: unknown): string {
  if (typeof body !== 'string') return formatJson(body);
  try {
    return formatJson(JSON.parse(body));
  } catch {
    return showBidiControls(body);
  }
}

function ReplayResult({ run }: { run: ReplayRun }) {
  return (
    <div className="replay-result" role="region" aria-label="Replay result">
      <h4>Replay result</h4>
      <dl className="facts">
        <div className="fact">
          <dt>Run</dt>
          <dd>{run.status}</dd>
        </div>
        <div className="fact">
          <dt>Response status</dt>
          <dd>{run.responseStatus ?? '—'}</dd>
        </div>
        <div className="fact">
          <dt>Duration</dt>
          <dd>{formatDuration(run.durationMs)}</dd>
        </div>
        {run.error ? (
          <div className="fact">
            <dt>Error</dt>
            <dd>
              <UserText text={run.error} />
            </dd>
          </div>
        ) : null}
      </dl>
      {run.comparison === null ? (
        <p className="muted">No comparison: the run did not complete or the event recorded no output.</p>
      ) : (
        <DiffTable rows={run.comparison} caption="Compared with the recorded output" beforeLabel="Recorded" afterLabel="Replayed" />
      )}
      {run.responsePayload !== null && run.responsePayload !== undefined ? (
        <details className="json">
          <summary>Response body</summary>
          <pre tabIndex={0}>{formatJson(run.responsePayload)}</pre>
        </details>
      ) : null}
    </div>
  );
}

function NoDestination({ project, onCreated }: { project: Project; onCreated: () => Promise<void> }) {
  const [error, setError] = useState<unknown>(null);
  const create = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    try {
      await request('/v1/replay-destinations', {
        projectId: project.id,
        method: 'POST',
        body: { name: String(form.get('name')), baseUrl: String(form.get('baseUrl')), environmentType: String(form.get('environmentType')), headers: {} } satisfies NewDestinationRequest,
      });
      await onCreated();
    } catch (err) {
      setError(err);
    }
  };
  const example = JSON.stringify({ name: 'local', baseUrl: 'http://localhost:3000', environmentType: 'local', headers: {} });
  return (
    <EmptyState title="No replay destination yet">
      <p>A replay sends the event's recorded input to a destination: a local, development or test copy of your service.</p>
      <form className="replay-form" onSubmit={create}>
        <label>
          Name
          <input name="name" required defaultValue="local" />
        </label>
        <label>
          Base URL
          <input name="baseUrl" required type="url" defaultValue="http://localhost:3000" size={28} />
        </label>
        <label>
          Kind
          <select name="environmentType" defaultValue="local">
            <option value="local">local</option>
            <option value="development">development</option>
            <option value="test">test</option>
          </select>
        </label>
        <button type="submit">Create destination</button>
      </form>
      <ErrorMessage error={error} />
      <p>Or with the API (header values are stored encrypted and never shown again):</p>
      <Command>{`curl -X POST ${location.origin}/v1/replay-destinations \\\n  -H "authorization: Bearer $ADMIN_TOKEN" \\\n  -H 'x-service-project-id: ${project.id}' \\\n  -H 'content-type: application/json' \\\n  -d '${example}'`}</Command>
      <p className="muted">
        The destination's host must be listed in <code>REPLAY_ALLOWED_HOSTS</code> (with the embedded database it defaults to localhost and 127.0.0.1).
      </p>
    </EmptyState>
  );
}
