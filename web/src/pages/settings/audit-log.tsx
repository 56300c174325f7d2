// The audit log (GET /v1/audit-log): the spec's audit rows, the settings history (before → after)
// and, for owners, sign-ins and accounts. Filters live in the address so a view can be shared;
// "Load more" follows the keyset cursor; the CSV export takes the same filters.
import { useEffect, useState, type FormEvent } from 'react';
import { API_BASE, query, request, type AuditEntry, type Page, type Project } from '../../api.ts';
import { Loading } from '../../components/common.tsx';
import { FormProblems } from '../../components/form-problems.tsx';
import { problem, type FieldLabels, type FieldProblem } from '../../lib/field-problems.ts';
import { UserText } from '../../components/user-text.tsx';
import { navigate, useLocation } from '../../router.tsx';
import { useIsOwner, useSessionInfo } from '../../roles.tsx';

const FILTERS = ['actor', 'action', 'kind', 'project', 'since', 'until'] as const;
type Filters = Record<(typeof FILTERS)[number], string>;

const ACTIONS = [
  'journey.deleted', 'erasure.completed', 'range.deleted', 'replay_destination.created', 'replay_destination.deleted',
  'api_key.created', 'api_key.revoked', 'member.granted', 'member.revoked', 'project.created', 'project.renamed',
  'environment.created', 'environment.updated', 'replay_destination.updated', 'replay_destination.disabled',
  'replay_destination.enabled', 'member.role_changed', 'user.created', 'user.disabled', 'user.enabled', 'token.created',
  'token.revoked', 'session.signed_in', 'session.sign_in_refused', 'password.reset',
];

const FILTER_LABELS: FieldLabels = { since: 'Since', until: 'Until', actor: 'Actor', action: 'Action', project: 'Project', kind: 'Kind' };

/** `datetime-local` holds a local time without zone; the address holds an instant. */
function toInstant(local: string): string {
  if (local === '') return '';
  const date = new Date(local);
  return Number.isNaN(date.getTime()) ? '' : date.toISOString();
}

function toLocal(instant: string): string {
  const date = new Date(instant);
  if (instant === '' || Number.isNaN(date.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

export function AuditLogPage({ projects }: { projects: Project[] }) {
  const { params } = useLocation();
  const filters = Object.fromEntries(FILTERS.map((name) => [name, params.get(name) ?? ''])) as Filters;
  const filterQuery = query(filters);
  const [page, setPage] = useState<Page<AuditEntry> | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [more, setMore] = useState(false);

  useEffect(() => {
    document.title = 'Audit log · Settings · jtrace';
    setPage(null);
    setError(null);
    const controller = new AbortController();
    request<Page<AuditEntry>>(`/v1/audit-log${filterQuery}`, { signal: controller.signal }).then(setPage, (e: unknown) => {
      if (!controller.signal.aborted) setError(e);
    });
    return () => controller.abort();
  }, [filterQuery]);

  const loadMore = async () => {
    if (!page?.nextCursor) return;
    setMore(true);
    try {
      const next = await request<Page<AuditEntry>>(`/v1/audit-log${query({ ...filters, cursor: page.nextCursor })}`);
      setPage({ items: [...page.items, ...next.items], nextCursor: next.nextCursor });
    } catch (e) {
      setError(e);
    } finally {
      setMore(false);
    }
  };

  return (
    <>
      <h2>Audit log</h2>
      <p className="muted">Who did what: the audit rows, every settings change with its values before and after, and (for owners) sign-ins and accounts.</p>
      <FilterForm filters={filters} projects={projects} />
      <p>
        <a href={`${API_BASE}/v1/audit-log.csv${filterQuery}`} download="jtrace-audit-log.csv">
          Export these rows as CSV
        </a>
      </p>
      <FormProblems error={error} labels={FILTER_LABELS} />
      {page === null ? (
        error ? null : <Loading what="the audit log" />
      ) : page.items.length === 0 ? (
        <p className="muted">No row matches these filters.</p>
      ) : (
        <table className="audit-log">
          <caption className="visually-hidden">Audit log rows, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Actor</th>
              <th scope="col">Action</th>
              <th scope="col">Project</th>
              <th scope="col">Details</th>
            </tr>
          </thead>
          <tbody>
            {page.items.map((entry) => (
              <AuditRow key={`${entry.kind}-${entry.id}`} entry={entry} />
            ))}
          </tbody>
        </table>
      )}
      {page?.nextCursor ? (
        <button type="button" onClick={() => void loadMore()} disabled={more}>
          Load more
        </button>
      ) : null}
    </>
  );
}

function FilterForm({ filters, projects }: { filters: Filters; projects: Project[] }) {
  // A person reads the rows of the projects they administer; owners and the admin token every project's.
  const session = useSessionInfo();
  const owner = useIsOwner();
  const readable = owner ? projects : projects.filter((p) => session?.projects.some((s) => s.projectId === p.id && s.actions.includes('auditLog.read')));
  const [problems, setProblems] = useState<FieldProblem[]>([]);
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const value = (name: string) => String(form.get(name) ?? '').trim();
    const next = { actor: value('actor'), action: value('action'), kind: value('kind'), project: value('project'), since: toInstant(value('since')), until: toInstant(value('until')) };
    // The server refuses it too (invalid_query); said here, by field, before asking.
    const found = next.since !== '' && next.until !== '' && Date.parse(next.until) <= Date.parse(next.since) ? [problem('until', FILTER_LABELS, 'must be after Since')] : [];
    setProblems(found);
    if (found.length === 0) navigate(`/settings/audit-log${query(next)}`);
  };
  // Keyed by the address: going back or forward refills the fields.
  return (
    <form key={query(filters)} className="audit-filters" onSubmit={submit} aria-label="Filter the audit log">
      <label>
        Actor
        <input name="actor" list="audit-actors" defaultValue={filters.actor} placeholder="e-mail or admin-token, cli…" />
      </label>
      <datalist id="audit-actors">
        {['admin-token', 'cli', 'api-key', 'user', 'none'].map((kind) => (
          <option key={kind} value={kind} />
        ))}
      </datalist>
      <label>
        Action
        <input name="action" list="audit-actions" defaultValue={filters.action} />
      </label>
      <datalist id="audit-actions">
        {ACTIONS.map((action) => (
          <option key={action} value={action} />
        ))}
      </datalist>
      <label>
        Kind
        <select name="kind" defaultValue={filters.kind}>
          <option value="">all</option>
          <option value="audit">audit rows</option>
          <option value="settings">settings changes</option>
          <option value="account">accounts and sign-ins</option>
        </select>
      </label>
      <label>
        Project
        <select name="project" defaultValue={filters.project}>
          <option value="">all I administer</option>
          {readable.map((p) => (
            <option key={p.id} value={p.id}>
              {p.name}
            </option>
          ))}
        </select>
      </label>
      <label>
        Since
        <input name="since" type="datetime-local" defaultValue={toLocal(filters.since)} />
      </label>
      <label>
        Until
        <input name="until" type="datetime-local" defaultValue={toLocal(filters.until)} aria-invalid={problems.length > 0 ? true : undefined} />
      </label>
      <FormProblems error={null} labels={FILTER_LABELS} problems={problems} />
      <div className="audit-filter-actions">
        <button type="submit">Apply filters</button>
        <button type="button" onClick={() => navigate('/settings/audit-log')}>
          Clear
        </button>
      </div>
    </form>
  );
}

function actorText(actor: AuditEntry['actor']): string {
  if (actor.email) return actor.email;
  if (actor.keyPrefix) return `API key ${actor.keyPrefix}`;
  return actor.kind ?? 'unknown';
}

function valueText(value: unknown): string {
  if (value === null || value === undefined) return '–';
  if (Array.isArray(value)) return value.length === 0 ? '(none)' : value.join(', ');
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function AuditRow({ entry }: { entry: AuditEntry }) {
  return (
    <tr>
      <td data-label="Time">
        <time dateTime={entry.time}>{new Date(entry.time).toLocaleString()}</time>
      </td>
      <td data-label="Actor">
        <UserText text={actorText(entry.actor)} />
        {entry.actor.clientAddress ? <span className="muted audit-address"> from <UserText text={entry.actor.clientAddress} /></span> : null}
      </td>
      <td data-label="Action">
        <code>{entry.action}</code> <span className={`badge badge-kind-${entry.kind}`}>{entry.kind}</span>
      </td>
      <td data-label="Project">{entry.project ? <UserText text={entry.project.name} /> : <span className="muted">–</span>}</td>
      <td data-label="Details">
        <Details entry={entry} />
      </td>
    </tr>
  );
}

function Details({ entry }: { entry: AuditEntry }) {
  if (entry.kind === 'settings') {
    const keys = [...new Set([...Object.keys(entry.before ?? {}), ...Object.keys(entry.after ?? {})])];
    return (
      <ul className="audit-details">
        {entry.subject ? (
          <li className="muted">
            <UserText text={entry.subject} />
          </li>
        ) : null}
        {keys.map((key) => (
          <li key={key}>
            {key}: <UserText text={valueText(entry.before?.[key])} /> → <UserText text={valueText(entry.after?.[key])} />
          </li>
        ))}
      </ul>
    );
  }
  const details = Object.entries(entry.details ?? {});
  return (
    <ul className="audit-details">
      {details.map(([key, value]) => (
        <li key={key}>
          {key}: <UserText text={valueText(value)} />
        </li>
      ))}
    </ul>
  );
}
