// Replay destinations of a project (admins): list, add, edit, disable or enable, delete. Header
// values are write-only: the page shows which names are set and sends only what the admin changes
// (PATCH headers is a merge patch: a value sets, null removes, a name left out keeps its value).
import { useCallback, useEffect, useRef, useState, type FormEvent } from 'react';
import { request, type Destination, type NewDestinationRequest, type Project } from '../../api.ts';
import { ErrorMessage, Loading } from '../../components/common.tsx';
import { UserText } from '../../components/user-text.tsx';
import { UrlCheck } from './url-check.tsx';
import { useAction } from '../../lib/use-action.ts';

type Listed = Destination & { runCount?: number };
type Kind = Destination['environmentType'];

export function DestinationsPage({ project }: { project: Project }) {
  const [destinations, setDestinations] = useState<Listed[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const load = useCallback(() => {
    request<{ items: Listed[] }>('/v1/replay-destinations?include=runCount', { projectId: project.id }).then((data) => setDestinations(data.items), setError);
  }, [project.id]);
  useEffect(() => {
    document.title = `Replay destinations · ${project.name} · jtrace`;
    load();
  }, [load, project.name]);

  return (
    <>
      <h2>Replay destinations</h2>
      <p className="muted">
        A replay sends an event's recorded input to one of these. Header values are stored encrypted and never shown again: a header reads as set, and an edit
        replaces or removes it without reading it.
      </p>
      <ErrorMessage error={error} />
      {!destinations ? (
        <Loading what="destinations" />
      ) : destinations.length === 0 ? (
        <p className="muted">No replay destination yet.</p>
      ) : (
        <ul className="destination-list" aria-label="Replay destinations">
          {destinations.map((d) => (
            <DestinationItem key={d.id} project={project} destination={d} onChanged={load} />
          ))}
        </ul>
      )}
      <DestinationForm project={project} destination={null} onDone={load} />
    </>
  );
}

function DestinationItem({ project, destination, onChanged }: { project: Project; destination: Listed; onChanged: () => void }) {
  const [editing, setEditing] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const toggle = async () => {
    setError(null);
    try {
      await request(`/v1/replay-destinations/${destination.id}`, { method: 'PATCH', projectId: project.id, body: { disabled: !destination.disabled } });
      onChanged();
    } catch (e) {
      setError(e);
    }
  };
  const headingId = `destination-${destination.id}`;
  return (
    <li className="card destination">
      <h2 id={headingId}>
        <UserText text={destination.name} /> {destination.disabled ? <span className="badge badge-disabled">disabled</span> : null}
      </h2>
      <dl className="destination-facts">
        <dt>Base URL</dt>
        <dd>
          <code>
            <UserText text={destination.baseUrl} />
          </code>
        </dd>
        <dt>Kind</dt>
        <dd>{destination.environmentType}</dd>
        <dt>Headers</dt>
        <dd>{destination.headerNames.length === 0 ? <span className="muted">none</span> : destination.headerNames.map((name) => <HeaderName key={name} name={name} />)}</dd>
        <dt>State</dt>
        <dd>{destination.disabled ? 'disabled: replays to it are refused' : 'enabled'}</dd>
        <dt>Replay runs</dt>
        <dd>{destination.runCount ?? '–'}</dd>
      </dl>
      <ErrorMessage error={error} />
      {editing ? (
        <DestinationForm project={project} destination={destination} onDone={() => { setEditing(false); onChanged(); }} onCancel={() => setEditing(false)} />
      ) : (
        <div className="destination-actions">
          <button type="button" onClick={() => setEditing(true)}>
            Edit <span className="visually-hidden"><UserText text={destination.name} /></span>
          </button>
          <button type="button" onClick={() => void toggle()}>
            {destination.disabled ? 'Enable' : 'Disable'} <span className="visually-hidden"><UserText text={destination.name} /></span>
          </button>
          <DeleteDestination project={project} destination={destination} onDeleted={onChanged} />
        </div>
      )}
    </li>
  );
}

function HeaderName({ name }: { name: string }) {
  return (
    <span className="header-name">
      <code>
        <UserText text={name} />
      </code>{' '}
      <span className="muted">(value set)</span>
    </span>
  );
}

function DeleteDestination({ project, destination, onDeleted }: { project: Project; destination: Listed; onDeleted: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const { busy, error, run } = useAction();
  const runs = destination.runCount ?? 0;
  const confirm = () => {
    void run(async () => {
      await request(`/v1/replay-destinations/${destination.id}`, { method: 'DELETE', projectId: project.id });
      dialog.current?.close();
      onDeleted();
    });
  };
  const headingId = `delete-${destination.id}`;
  return (
    <>
      <button type="button" className="danger" onClick={() => dialog.current?.showModal()}>
        Delete… <span className="visually-hidden"><UserText text={destination.name} /></span>
      </button>
      <dialog ref={dialog} aria-labelledby={headingId} className="confirm">
        <h2 id={headingId}>
          Delete the replay destination “<UserText text={destination.name} />”?
        </h2>
        <p>
          This also deletes the {runs === 1 ? '1 replay run' : `${runs} replay runs`} sent to it. It cannot be undone.
        </p>
        <ErrorMessage error={error} />
        <div className="dialog-actions">
          <button type="button" autoFocus onClick={() => dialog.current?.close()}>
            Cancel
          </button>
          <button type="button" className="danger" onClick={() => void confirm()} disabled={busy}>
            Delete destination
          </button>
        </div>
      </dialog>
    </>
  );
}

interface HeaderRow {
  key: number;
  name: string;
  value: string;
  /** A header already stored: its name is fixed and its value unknown to the page. */
  stored: boolean;
  remove: boolean;
}

let rowKeys = 0;
const newRow = (): HeaderRow => ({ key: ++rowKeys, name: '', value: '', stored: false, remove: false });

/** Adds a destination (destination null) or edits one. */
function DestinationForm({ project, destination, onDone, onCancel }: { project: Project; destination: Listed | null; onDone: () => void; onCancel?: () => void }) {
  const [name, setName] = useState(destination?.name ?? '');
  const [baseUrl, setBaseUrl] = useState(destination?.baseUrl ?? '');
  const [kind, setKind] = useState<Kind>(destination?.environmentType ?? 'local');
  const [rows, setRows] = useState<HeaderRow[]>(() => destination?.headerNames.map((n) => ({ ...newRow(), name: n, stored: true })) ?? []);
  const { busy, error, run } = useAction();
  const prefix = destination ? `edit-${destination.id}` : 'new-destination';
  // A new URL needs every stored value again (or its removal): the server refuses to carry them over.
  const urlChanged = destination !== null && baseUrl.trim().replace(/\/+$/, '') !== destination.baseUrl;
  const update = (key: number, change: Partial<HeaderRow>) => setRows((all) => all.map((r) => (r.key === key ? { ...r, ...change } : r)));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      if (destination === null) {
        const headers = Object.fromEntries(rows.filter((r) => r.name.trim() !== '').map((r) => [r.name.trim(), r.value]));
        const body: NewDestinationRequest = { name, baseUrl, environmentType: kind, headers };
        await request('/v1/replay-destinations', { method: 'POST', projectId: project.id, body });
        setName('');
        setBaseUrl('');
        setRows([]);
      } else {
        const headers: Record<string, string | null> = {};
        for (const r of rows) {
          if (r.stored && r.remove) headers[r.name] = null;
          else if (r.stored && r.value !== '') headers[r.name] = r.value;
          else if (!r.stored && r.name.trim() !== '') headers[r.name.trim()] = r.value;
        }
        const body = { name, baseUrl, ...(Object.keys(headers).length > 0 ? { headers } : {}) };
        await request(`/v1/replay-destinations/${destination.id}`, { method: 'PATCH', projectId: project.id, body });
      }
      onDone();
    });
  };

  return (
    <form className="card destination-form" onSubmit={submit} aria-label={destination ? `Edit ${destination.name}` : 'Add a destination'}>
      {destination ? null : <h2>Add a destination</h2>}
      <label htmlFor={`${prefix}-name`}>Name</label>
      <input id={`${prefix}-name`} required value={name} onChange={(e) => setName(e.target.value)} />
      <label htmlFor={`${prefix}-url`}>Base URL</label>
      <input id={`${prefix}-url`} required type="url" inputMode="url" value={baseUrl} onChange={(e) => setBaseUrl(e.target.value)} aria-describedby={`${prefix}-url-check`} placeholder="http://localhost:3000" />
      <UrlCheck id={`${prefix}-url-check`} project={project} baseUrl={baseUrl} />
      {destination ? null : (
        <>
          <label htmlFor={`${prefix}-kind`}>Kind</label>
          <select id={`${prefix}-kind`} value={kind} onChange={(e) => setKind(e.target.value as Kind)}>
            <option value="local">local</option>
            <option value="development">development</option>
            <option value="test">test</option>
          </select>
        </>
      )}
      <fieldset className="header-rows">
        <legend>Headers sent with every replay</legend>
        {rows.length === 0 ? <p className="muted">None.</p> : null}
        {urlChanged && rows.some((r) => r.stored) ? <p className="muted">A new base URL needs a new value for every stored header, or its removal.</p> : null}
        {rows.map((r, index) => (
          <div className="header-row" key={r.key}>
            {r.stored ? (
              <>
                <span className="header-row-name">
                  <code>
                    <UserText text={r.name} />
                  </code>
                </span>
                <label>
                  New value <span className="visually-hidden">of {r.name}</span>
                  <input type="password" autoComplete="off" value={r.value} disabled={r.remove} required={urlChanged && !r.remove} placeholder={urlChanged ? 'needed for the new URL' : 'unchanged'} onChange={(e) => update(r.key, { value: e.target.value })} />
                </label>
                <label className="inline">
                  <input type="checkbox" checked={r.remove} onChange={(e) => update(r.key, { remove: e.target.checked })} /> Remove <span className="visually-hidden">{r.name}</span>
                </label>
              </>
            ) : (
              <>
                <label>
                  Header name <span className="visually-hidden">{index + 1}</span>
                  <input value={r.name} autoComplete="off" onChange={(e) => update(r.key, { name: e.target.value })} />
                </label>
                <label>
                  Value <span className="visually-hidden">{index + 1}</span>
                  <input type="password" autoComplete="off" value={r.value} onChange={(e) => update(r.key, { value: e.target.value })} />
                </label>
                <button type="button" className="link-button" onClick={() => setRows((all) => all.filter((x) => x.key !== r.key))}>
                  Drop <span className="visually-hidden">header {index + 1}</span>
                </button>
              </>
            )}
          </div>
        ))}
        <button type="button" onClick={() => setRows((all) => [...all, newRow()])}>
          Add a header
        </button>
      </fieldset>
      <ErrorMessage error={error} />
      <div className="destination-actions">
        <button type="submit" disabled={busy}>
          {destination ? 'Save changes' : 'Add destination'}
        </button>
        {onCancel ? (
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        ) : null}
      </div>
    </form>
  );
}
