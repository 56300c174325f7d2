import { memo, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { ApiError, request, type EventRow, type JourneyDetail, type Page, type Project } from '../api.ts';
import { ErrorMessage, Loading, StatusBadge } from '../components/common.tsx';
import { EventDetailPanel } from '../components/event-detail.tsx';
import { FieldTrail, TransitLossMarker, transitLossesByEvent, useJourneyChanges, WhatChanged } from '../components/forensics.tsx';
import { findingMarkers, JourneyFindings } from '../components/findings.tsx';
import { Timeline } from '../components/timeline.tsx';
import { VIRTUAL_FROM_ROWS } from '../components/virtual-timeline.tsx';
import { Waterfall } from '../components/waterfall.tsx';
import { entityIdText, formatPreciseTime, journeyTitle } from '../lib/format.ts';
import { DownloadJourney } from '../components/download-journey.tsx';
import { useTimeZone } from '../lib/time-zone.ts';
import { displayOrder, groupRetries, timelineEntries } from '../lib/timeline.ts';
import { Link, navigate, withParams } from '../router.tsx';
import { DeleteJourney } from './delete-journey.tsx';
import { NotFound } from './not-found.tsx';
import { UserText } from '../components/user-text.tsx';
import { AliasValue } from '../components/alias-value.tsx';
import { showBidiControls } from '../lib/bidi.ts';
import { useKeyboardMoves } from './keyboard.ts';
import { readEvent } from '../lib/event-cache.ts';
import { firstLosingEvent, lossesByEvent } from '../lib/losing-steps.ts';

const EVENT_PAGE = 100;
const LIVE_INTERVAL_MS = 3000;
// The page renders again at every "j" (the address changes): these parts keep their props and skip it.
const ShownChanges = memo(WhatChanged);
const ShownFindings = memo(JourneyFindings);

export function JourneyPage({ project, journeyId, params }: { project: Project; journeyId: string; params: URLSearchParams }) {
  const [journey, setJourney] = useState<JourneyDetail | null>(null);
  const [events, setEvents] = useState<EventRow[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [loadingMore, setLoadingMore] = useState(false);
  const [live, setLive] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const selectedId = params.get('event');
  // The address without the selected event: links and handlers built from it stay the same
  // while "j" moves, so the rows, bars and panels given them are not drawn again.
  const restText = useMemo(() => {
    const rest = new URLSearchParams(params);
    rest.delete('event');
    return rest.toString();
  }, [params]);
  const rest = useMemo(() => new URLSearchParams(restText), [restText]);
  const selectedRef = useRef(selectedId);
  selectedRef.current = selectedId;
  useTimeZone(); // re-render every time shown when the UTC switch changes
  const field = params.get('field');
  const base = `/projects/${project.id}/journeys/${encodeURIComponent(journeyId)}`;
  const path = `/v1/journeys/${encodeURIComponent(journeyId)}`;
  const options = useMemo(() => ({ projectId: project.id }), [project.id]);

  /** Reads the journey and at least `want` events, page by page. */
  const load = useCallback(
    async (want: number) => {
      const detail = await request<JourneyDetail>(path, options);
      const rows: EventRow[] = [];
      let next: string | null = null;
      do {
        const page: Page<EventRow> = await request<Page<EventRow>>(`${path}/events?limit=${EVENT_PAGE}${next ? '&cursor=' + encodeURIComponent(next) : ''}`, options);
        rows.push(...page.items);
        next = page.nextCursor;
      } while (next && rows.length < want);
      setJourney(detail);
      setEvents(rows);
      setCursor(next);
    },
    [path, options],
  );

  useEffect(() => {
    setJourney(null);
    setEvents([]);
    setError(null);
    load(EVENT_PAGE).catch(setError);
  }, [load]);

  useEffect(() => {
    if (journey) document.title = showBidiControls(`${journeyTitle(journey)} · ${project.name} · jtrace`);
  }, [journey, project.name]);

  // Live: re-read while the toggle is on; new events of an active journey appear as they arrive.
  const loadedCount = useRef(0);
  loadedCount.current = events.length;
  useEffect(() => {
    if (!live) return;
    const timer = setInterval(() => {
      load(Math.max(EVENT_PAGE, loadedCount.current + EVENT_PAGE)).catch(setError);
    }, LIVE_INTERVAL_MS);
    return () => clearInterval(timer);
  }, [live, load]);

  // The page after the last one shown is asked for as soon as that one is shown, so "Load more"
  // (or scrolling near the end) finds it ready instead of waiting for the server.
  const ahead = useRef<{ url: string; page: Promise<Page<EventRow>> } | null>(null);
  const fetchPage = useCallback(
    (after: string) => {
      const url = `${path}/events?limit=${EVENT_PAGE}&cursor=${encodeURIComponent(after)}`;
      if (ahead.current?.url !== url) {
        const page = request<Page<EventRow>>(url, options);
        ahead.current = { url, page };
        // A failed read is asked again by the next attempt, and reported by loadMore.
        page.catch(() => {
          if (ahead.current?.page === page) ahead.current = null;
        });
      }
      return ahead.current!.page;
    },
    [path, options],
  );
  useEffect(() => {
    if (cursor) fetchPage(cursor).catch(() => undefined);
  }, [cursor, fetchPage]);

  // One page at a time, however often the timeline's end comes into view meanwhile.
  const loadingPage = useRef(false);
  const loadMore = useCallback(async () => {
    if (!cursor || loadingPage.current) return;
    loadingPage.current = true;
    setLoadingMore(true);
    try {
      const page = await fetchPage(cursor);
      setEvents((rows) => [...rows, ...page.items]);
      setCursor(page.nextCursor);
    } catch (e) {
      setError(e);
    } finally {
      loadingPage.current = false;
      setLoadingMore(false);
    }
  }, [cursor, fetchPage]);

  const items = useMemo(() => groupRetries(timelineEntries(events)), [events]);
  const order = useMemo(() => displayOrder(items), [items]);
  const select = useCallback((id: string) => navigate(base + withParams(rest, { event: id }), { replace: true }), [base, rest]);
  useKeyboardMoves(order, selectedId, select);
  // The events either side of the selected one are read ahead: "j" or "k" shows them at once.
  useEffect(() => {
    const index = order.findIndex((row) => row.id === selectedId);
    if (index === -1) return;
    for (const neighbour of [order[index + 1], order[index - 1]]) if (neighbour) readEvent(project.id, neighbour.id);
  }, [order, selectedId, project.id]);

  // The forensics panels are read again whenever the journey has new events (Live).
  const revision = journey ? `${journey.eventCount}/${journey.lastEventAt}` : null;
  const changes = useJourneyChanges(project, journeyId, revision);
  const losses = useMemo(() => transitLossesByEvent(changes.data), [changes.data]);
  const lostIn = useMemo(() => lossesByEvent(changes.data), [changes.data]);
  // Opened without a chosen event, the page selects the step that lost (else changed) a value first.
  const opened = useRef(false);
  useEffect(() => {
    if (opened.current || !changes.data) return;
    opened.current = true;
    const first = firstLosingEvent(changes.data);
    if (first && selectedId === null && field === null) select(first);
  }, [changes.data, selectedId, field, select]);
  const eventHref = useCallback((eventId: string) => base + withParams(rest, { event: eventId }), [base, rest]);

  // Focus goes back where following started when it stops (the Stop button disappears with
  // the panel); without that control, to the "What changed" heading.
  const followOrigin = useRef<HTMLElement | null>(null);
  const changesHeading = useRef<HTMLHeadingElement>(null);
  // Following a field keeps the selected event (read when following starts); a marker on the
  // timeline follows from its own step and selects it.
  const followTo = useCallback((fieldPath: string, eventId: string | null) => base + withParams(rest, { event: eventId, field: fieldPath }), [base, rest]);
  const follow = useCallback(
    (fieldPath: string, origin?: HTMLElement) => {
      followOrigin.current = origin ?? null;
      navigate(followTo(fieldPath, selectedRef.current));
    },
    [followTo],
  );
  const stopFollowing = useCallback(() => navigate(base + withParams(params, { field: null })), [base, params]);
  const followedBefore = useRef(field);
  useEffect(() => {
    const was = followedBefore.current;
    followedBefore.current = field;
    if (was === null || field !== null) return;
    // Only when focus was lost with the panel, not when the reader has moved on.
    if (document.activeElement !== null && document.activeElement !== document.body) return;
    const origin = followOrigin.current;
    followOrigin.current = null;
    if (origin?.isConnected) origin.focus();
    else changesHeading.current?.focus();
  }, [field]);
  const findings = journey?.findings;
  const lossMarkers = useCallback(
    (eventId: string) => [
      ...(findings ? findingMarkers(findings, eventId) : []),
      ...(losses.get(eventId)?.map((loss) => (
        <TransitLossMarker key={`${loss.path} ${loss.from.eventId}`} loss={loss} to={followTo(loss.path, eventId)} onFollow={(origin) => (followOrigin.current = origin)} />
      )) ?? []),
    ],
    [losses, followTo, findings],
  );

  if (error instanceof ApiError && error.status === 404) {
    return <NotFound title="Journey not found" reason="No journey has this id in this project: it was deleted, erased, or never existed." projectId={project.id} />;
  }
  if (error) return <ErrorMessage error={error} />;
  if (!journey) return <Loading what="the journey" />;
  const title = journeyTitle(journey);
  return (
    <>
      <div className="page-heading">
        <h1>
          <UserText text={title} />
        </h1>
        <StatusBadge status={journey.status} />
        <div className="actions">
          <button type="button" className={live ? 'toggle on' : 'toggle'} aria-pressed={live} onClick={() => setLive(!live)}>
            Live
          </button>
          <Link to={`/projects/${project.id}/compare` + withParams(new URLSearchParams(), { a: journeyId })} className="button-link">
            Compare
          </Link>
          <DownloadJourney projectId={project.id} journeyId={journeyId} />
          <DeleteJourney project={project} journey={journey} title={title} />
        </div>
      </div>
      <p className="journey-meta">
        <UserText text={journey.entity.type} />{' '}
        <code>
          <UserText text={entityIdText(journey.entity.id)} />
        </code>{' '}
        · <UserText text={journey.environment} /> · {journey.eventCount} events · started{' '}
        {formatPreciseTime(journey.startedAt)} · last activity {formatPreciseTime(journey.lastEventAt)}
        {journey.failedStep ? <span className="failed-step">
            {' '}
            · failed at <UserText text={journey.failedStep} />
          </span> : null}
      </p>
      {journey.aliases.length > 0 ? (
        <p className="aka">
          Also known as:{' '}
          {journey.aliases.map((alias, index) => (
            <span key={`${index}:${alias.type}`} className="alias-chip">
              <UserText text={alias.type} />: <AliasValue alias={alias} />
            </span>
          ))}
          {journey.aliasesTruncated ? <span className="muted"> and more: the first {journey.aliases.length} are shown.</span> : null}
        </p>
      ) : null}
      {live ? (
        <p className="muted" role="status">
          Following this journey: new events appear as they arrive.
        </p>
      ) : null}
      <Waterfall events={events} selectedId={selectedId} onSelect={select} lost={lostIn} />
      <ShownFindings findings={journey.findings} onSelect={select} />
      <div className="journey-body">
        <section aria-labelledby="timeline-heading" className="timeline-column">
          {/* What changed sits above the timeline, beside the selected event, so no half of the page stays empty. */}
          <div className="forensics">
            <ShownChanges changes={changes} onFollow={follow} headingRef={changesHeading} eventHref={eventHref} />
            {field !== null ? <FieldTrail project={project} journeyId={journeyId} revision={revision} path={field} onClose={stopFollowing} onSelect={select} /> : null}
          </div>
          <h2 id="timeline-heading">Timeline</h2>
          <p className="muted hint">
            Select an event; <kbd>j</kbd>/<kbd>k</kbd> or <kbd>↓</kbd>/<kbd>↑</kbd> move between events.
          </p>
          <Timeline items={items} selectedId={selectedId} onSelect={select} before={lossMarkers} lost={lostIn} onNearEnd={loadMore} long={journey.eventCount > VIRTUAL_FROM_ROWS} />
          {cursor ? (
            <button type="button" onClick={loadMore} disabled={loadingMore}>
              {loadingMore ? 'Loading…' : `Load more events (${events.length} of ${journey.eventCount})`}
            </button>
          ) : null}
        </section>
        <div className="detail-column">
          {selectedId ? <EventDetailPanel project={project} eventId={selectedId} onFollow={follow} /> : <p className="muted">Select an event to see its input, output, error and diff.</p>}
        </div>
      </div>
    </>
  );
}
