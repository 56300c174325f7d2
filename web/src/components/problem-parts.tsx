// Pieces shared by the Problems list and a problem's page: the title in words, the status
// badge, the sparkline and the place drawn as the journey page's timeline draws steps.
import type { Problem } from '../api.ts';
import { seriesSummary, sparklinePoints } from '../lib/problems.ts';
import { FINDING_LABELS, FindingText } from './findings.tsx';
import { UserText } from './user-text.tsx';

/** "lost customer.phone at normalize-contact", "lost customer.phone between persist and deliver"... */
export function ProblemTitle({ problem }: { problem: Problem }) {
  return <FindingText finding={problem} />;
}

/** The problem's title as plain text (page titles, link names). */
export function problemText(problem: Problem): string {
  const path = problem.path ?? '';
  const step = problem.step?.name ?? '';
  if (problem.kind === 'lost' || problem.kind === 'changed') {
    return problem.inTransit && problem.from ? `${problem.kind} ${path} between ${problem.from.name} and ${step}` : `${problem.kind} ${path} at ${step}`;
  }
  if (problem.kind === 'skipped_step') return `skipped ${path}`;
  if (problem.kind === 'overdue') return step ? `overdue before ${step}` : 'overdue';
  return `${problem.kind} ${problem.kind === 'failed' ? 'at ' : ''}${step}`;
}

export function ProblemStatusBadge({ status }: { status: Problem['status'] }) {
  return <span className={`badge problem-status problem-${status}`}>{status}</span>;
}

export function kindLabel(kind: Problem['kind']): string {
  return FINDING_LABELS[kind];
}

/** Hourly counts of the last 7 days as an inline line; its label says what it shows in words. */
export function Sparkline({ counts, width = 120, height = 24 }: { counts: readonly number[]; width?: number; height?: number }) {
  const { total, busiest } = seriesSummary(counts);
  return (
    <svg className="sparkline" width={width} height={height + 2} viewBox={`0 -1 ${width} ${height + 2}`} role="img" aria-label={`${total} journeys in the last 7 days, at most ${busiest} in an hour`}>
      <polyline points={sparklinePoints(counts, width, height)} fill="none" stroke="currentColor" strokeWidth="1.5" />
    </svg>
  );
}

/** Where it happens, drawn as the journey page's timeline: a step, or from → to for a loss in transit. */
export function ProblemPlace({ problem }: { problem: Problem }) {
  const box = (place: { service: string; name: string }, lost: boolean) => (
    <li className={lost ? 'event event-lost' : 'event'}>
      <span className="event-button place-step">
        <span className="col-main">
          <UserText className="col-service" text={place.service} /> <UserText className="col-name" text={place.name} />
        </span>
        {lost && problem.path !== null ? (
          <span className="col-second">
            <span className="flag flag-lost">
              {problem.kind} <UserText text={problem.path} />
            </span>
          </span>
        ) : null}
      </span>
    </li>
  );
  if (!problem.step) return <p className="muted">No single step: the journey as a whole.</p>;
  return (
    <ol className="timeline problem-place" aria-label="Where it happens">
      {problem.inTransit && problem.from ? (
        <>
          {box(problem.from, false)}
          <li className="transit-loss">
            <code>
              <UserText text={problem.path ?? ''} />
            </code>{' '}
            lost between <UserText text={problem.from.name} /> and <UserText text={problem.step.name} />
          </li>
          {box(problem.step, false)}
        </>
      ) : (
        box(problem.step, true)
      )}
    </ol>
  );
}
