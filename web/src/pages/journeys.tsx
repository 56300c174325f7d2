import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { query, request, type Activity, type JourneySummary, type Page, type Project } from '../api.ts';
import { ActivityChart } from '../components/activity-chart.tsx';
import { Command, EmptyState, EnvironmentOptions, ErrorMessage, Loading, Pager } from '../components/common.tsx';
import { FindingFilter, TopLostFields } from '../components/findings.tsx';
import { JourneyTable } from '../components/journey-table.tsx';
import { UserText } from '../components/user-text.tsx';
import { showBidiControls } from '../lib/bidi.ts';
import { SORTS, sortFromParam, sortJourneys } from '../lib/journey-sort.ts';
import { Link, navigate, withParams } from '../router.tsx';
import { useAllowed } from '../roles.tsx';
import { activityStart } from '../lib/activity-zoom.ts';
import { activitySummary, apiParams, filtersFromParams, filtersSummary, hasNarrowingFilter, localInputValue, type ListFilters } from './journeys-filters.ts';
import { Fold } from '../components/fold.tsx';

const PAGE_SIZE = 50;

export function JourneysPage({ project, params }: { project: Project; params: URLSearchParams }) {
  const key = params.toString();
  // Derived from the URL during render, so the form mounted for this URL shows its values
  // (state set in an effect would reach the form one render late and keep the previous ones).
  const filters = useMemo(() => filtersFromParams(new URLSearchParams(key)), [key]);
  // "Custom…" shows From and To and waits for Apply; the other windows apply at once.
  const [windowChoice, setWindowChoice] = useState(filters.window);
  useEffect(() => setWindowChoice(filters.window), [filters.window, key]);
  const [page, setPage] = useState<Page<JourneySummary> | null>(null);
  const [activity, setActivity] = useState<Activity | null>(null);
  const [everSent, setEverSent] = useState<boolean | null>(null);
  const [error, setError] = useState<unknown>(null);
  const base = `/projects/${project.id}/journeys`;

  useEffect(() => {
    const current = filters;
    setPage(null);
    setError(null);
    document.title = showBidiControls(`${current.status === 'failed' ? 'Failures' : current.finding === 'lost' ? 'Lost data' : 'Journeys'} · ${project.name} · jtrace`);
    const cursor = new URLSearchParams(key).get('cursor') ?? undefined;
    const options = { projectId: project.id };
    request<Page<JourneySummary>>('/v1/journeys' + query({ ...apiParams(current), limit: PAGE_SIZE, cursor }), options).then(setPage, setError);
    request<Activity>('/v1/journeys/activity' + query({ ...apiParams(current), buckets: 60 }), options).then(setActivity, setError);
  }, [filters, project.id, project.name]);

  // Without a chosen window, the chart is drawn from where the activity starts (the list is the
  // same: no journey is left out), so a burst in the last minutes is not one bar at the edge.
  const [zoom, setZoom] = useState<Activity | null>(null);
  const [wholeWindow, setWholeWindow] = useState(false);
  useEffect(() => {
    setZoom(null);
    if (wholeWindow || params.has('window') || !activity || !page || params.has('cursor')) return;
    const start = activityStart(activity, page.nextCursor === null ? page.items.map((j) => j.lastEventAt) : null);
    if (start === null) return;
    const controller = new AbortController();
    request<Activity>('/v1/journeys/activity' + query({ ...apiParams(filters), since: start, until: activity.until, buckets: 60 }), { projectId: project.id, signal: controller.signal }).then(
      setZoom,
      (e: unknown) => {
        if (!controller.signal.aborted) setError(e);
      },
    );
    return () => controller.abort();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [activity, page, wholeWindow]);

  // Tell "nothing in this window" from "nothing ever sent", to show the right commands.
  useEffect(() => {
    if (page && page.items.length === 0 && !hasNarrowingFilter(filters) && project.environments.length > 0) {
      request<Page<JourneySummary>>('/v1/journeys' + query({ since: '1970-01-01T00:00:00.000Z', limit: 1 }), { projectId: project.id }).then(
        (all) => setEverSent(all.items.length > 0),
        setError,
      );
    }
  }, [page, filters, project]);

  const go = (changes: Record<string, string | null | undefined>) => navigate(base + withParams(params, { cursor: null, at: null, deleted: null, ...changes }));

  const apply = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const text = (name: string) => String(form.get(name) ?? '').trim() || null;
    const window = text('window') ?? 'day';
    const localIso = (name: string) => {
      const value = text(name);
      const time = value ? new Date(value).getTime() : Number.NaN;
      return Number.isNaN(time) ? null : new Date(time).toISOString();
    };
    go({
      window,
      // A custom window without a From keeps the start shown until now.
      since: window === 'custom' ? (localIso('since') ?? filters.since) : null,
      until: window === 'custom' ? localIso('until') : null,
      status: text('status'),
      environment: text('environment'),
      service: text('service'),
      entityType: text('entityType'),
      q: text('q'),
      finding: text('finding'),
      path: text('finding') === filters.finding ? (filters.path ?? null) : null,
    });
  };

  const failuresOnly = filters.status === 'failed';
  const lostOnly = filters.finding === 'lost';
  const sort = sortFromParam(params.get('sort'));
  // The chart counts every journey the list would show with the same filters: an exact total.
  const total = activity ? activity.buckets.reduce((sum, b) => sum + b.active + b.completed + b.failed, 0) : null;
  const onePage = page !== null && page.nextCursor === null && !params.has('cursor');
  return (
    <>
      <div className="page-heading">
        <h1>{failuresOnly && lostOnly ? 'Failed journeys that lost data' : failuresOnly ? 'Failed journeys' : lostOnly ? 'Journeys that lost data' : 'Journeys'}</h1>
        <button type="button" className={failuresOnly ? 'toggle on' : 'toggle'} aria-pressed={failuresOnly} onClick={() => go({ status: failuresOnly ? null : 'failed' })}>
          Failures only
        </button>
        <button type="button" className={lostOnly ? 'toggle on' : 'toggle'} aria-pressed={lostOnly} onClick={() => go(lostOnly ? { finding: null, path: null } : { finding: 'lost', path: null })}>
          Lost data only
        </button>
      </div>
      <Fold className="filters-fold" summary={<>Filters<span className="muted"> · {filtersSummary(filters)}</span></>}>
      <form className="filters" onSubmit={apply} key={key} aria-label="Journey filters">
        <label>
          Window
          <select
            name="window"
            defaultValue={filters.window}
            onChange={(event) => {
              const choice = event.currentTarget.value as ListFilters['window'];
              setWindowChoice(choice);
              if (choice !== 'custom') event.currentTarget.form?.requestSubmit();
            }}
          >
            <option value="hour">Last hour</option>
            <option value="day">Last day</option>
            <option value="week">Last week</option>
            <option value="month">Last 30 days</option>
            <option value="custom">Custom…</option>
          </select>
        </label>
        {windowChoice === 'custom' ? (
          <>
            <label>
              From
              <input type="datetime-local" name="since" defaultValue={localInputValue(filters.since)} />
            </label>
            <label>
              To
              <input type="datetime-local" name="until" defaultValue={localInputValue(filters.until)} />
            </label>
          </>
        ) : null}
        <label>
          Status
          <select name="status" defaultValue={filters.status ?? ''} onChange={(event) => event.currentTarget.form?.requestSubmit()}>
            <option value="">Any</option>
            <option value="active">Active</option>
            <option value="completed">Completed</option>
            <option value="failed">Failed</option>
          </select>
        </label>
        <label>
          Environment
          <select name="environment" defaultValue={filters.environment ?? ''} onChange={(event) => event.currentTarget.form?.requestSubmit()}>
            <EnvironmentOptions environments={project.environments} />
          </select>
        </label>
        <label>
          Entity type
          <input name="entityType" defaultValue={filters.entityType ?? ''} size={10} />
        </label>
        <label>
          Service
          <input name="service" defaultValue={filters.service ?? ''} size={12} />
        </label>
        <label>
          Contains
          <input name="q" type="search" defaultValue={filters.q ?? ''} size={16} placeholder="label or alias" />
        </label>
        <FindingFilter value={filters.finding} />
        <button type="submit">Apply</button>
      </form>
      </Fold>
      {params.get('deleted') ? <p role="status" className="notice">The journey was deleted.</p> : null}
      <ErrorMessage error={error} />
      {activity ? (
        <Fold className="chart-fold" summary={<>Activity<span className="muted"> · {activitySummary(activity)}</span></>}>
          <ActivityChart
            activity={zoom ?? activity}
            onNarrow={(since, until) => go({ window: 'custom', since, until })}
          />
          {zoom ? (
            <p className="muted chart-zoom">
              The chart starts where this window’s activity does.{' '}
              <button type="button" className="link-button" onClick={() => setWholeWindow(true)}>
                Draw the whole window
              </button>
            </p>
          ) : null}
        </Fold>
      ) : null}
      <TopLostFields
        project={project}
        window={{ since: filters.since, until: filters.until, environment: filters.environment }}
      />
      {!page && !error ? <Loading what="journeys" /> : null}
      {page && page.items.length === 0 ? <EmptyList project={project} filters={filters} everSent={everSent} /> : null}
      {page && page.items.length > 0 ? (
        <>
          {total !== null ? (
            <p className="list-total">
              {total === 1 ? '1 journey matches' : `${total} journeys match`}
              {total > page.items.length ? `; ${page.items.length} on this page` : ''}.
              {sort !== 'last' && !onePage ? ` Sorted by ${SORTS[sort].toLowerCase()} within this page.` : ''}
            </p>
          ) : null}
          <JourneyTable
            projectId={project.id}
            items={sortJourneys(page.items, sort)}
            caption={`${failuresOnly ? 'Failed journeys' : 'Journeys'}, ${sort === 'last' ? 'most recent activity' : sort === 'start' ? 'latest start' : 'longest'} first`}
            captionHidden
            sort={sort}
            onSort={(by) => navigate(base + withParams(params, { sort: by === 'last' ? null : by }), { replace: true })}
          />
          <Pager
            onFirst={params.has('cursor') ? () => go({}) : null}
            onNext={page.nextCursor ? () => navigate(base + withParams(params, { cursor: page.nextCursor, at: filters.since })) : null}
          />
        </>
      ) : null}
    </>
  );
}

function EmptyList({ project, filters, everSent }: { project: Project; filters: ListFilters; everSent: boolean | null }) {
  if (project.environments.length === 0) {
    return (
      <EmptyState title="No API key yet">
        <p>Services send events with an API key of an environment of <UserText text={project.name} />.</p>
        <KeyHelp project={project} />
        <p>The key is printed once. Then send a first event (next step appears here).</p>
      </EmptyState>
    );
  }
  if (hasNarrowingFilter(filters) || everSent !== false) {
    return <p role="status">No journey matches these filters in this window. Widen the window or clear a filter.</p>;
  }
  const environment = project.environments[0]!;
  const event = {
    protocolVersion: '0.1',
    event: {
      id: 'evt_first',
      journeyId: 'jrn_first',
      environment,
      service: 'checkout',
      entity: { type: 'order', id: 'order-1' },
      operation: 'received',
      name: 'receive-order',
      timestamp: new Date().toISOString(),
    },
  };
  return (
    <EmptyState title="No events yet">
      <p>Nothing has been sent to <UserText text={project.name} />. Send a first event with the API key of <UserText text={environment} />:</p>
      <Command>{`curl -X POST ${location.origin}/v1/events \\\n  -H "authorization: Bearer $JTRACE_API_KEY" \\\n  -H 'content-type: application/json' \\\n  -d '${JSON.stringify(event)}'`}</Command>
      <p>Or load realistic demo data into a project named demo:</p>
      <Command>npx jtrace demo</Command>
    </EmptyState>
  );
}

/** Where a key is made: Settings for those who may, the CLI line as the other way. */
function KeyHelp({ project }: { project: Project }) {
  const canMake = useAllowed(project.id, 'apiKeys.manage');
  return (
    <>
      {canMake ? (
        <p>
          <Link to={`/settings/projects/${project.id}/api-keys`}>Create an API key in Settings</Link>, or from a shell on the server:
        </p>
      ) : (
        <p>An admin of this project creates one in Settings, or from a shell on the server:</p>
      )}
      <Command>{`npx jtrace key:create ${project.slug} production "my service"`}</Command>
    </>
  );
}
