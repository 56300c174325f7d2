// Findings in the interface (docs/findings.md): the list's column and filter, the "Top lost
// fields" panel, and the journey page's list and markers.

import { useEffect, useState, type ReactNode } from 'react';
import { query, request, type JourneyFinding, type Page, type Problem, type Project } from '../api.ts';
import { Link } from '../router.tsx';
import { ErrorMessage } from './common.tsx';
import { UserText } from './user-text.tsx';

export const FINDING_LABELS: Record<JourneyFinding['kind'], string> = {
  lost: 'Lost a field',
  changed: 'Changed a field',
  duplicated: 'Duplicated a step',
  failed: 'Failed',
  overdue: 'Overdue',
  skipped_step: 'Skipped a step',
};

/** What a finding's words are made of: a journey's finding, or a problem (findings grouped by place). */
export type FindingPlace = Pick<JourneyFinding, 'kind' | 'path' | 'inTransit'> & { step: { name: string } | null; from: { name: string } | null };

/** "lost customer.phone at normalize-contact", "skipped publish", "overdue"... */
export function FindingText({ finding }: { finding: FindingPlace }): ReactNode {
  const step = finding.step ? <UserText text={finding.step.name} /> : null;
  const path = finding.path === null ? null : <code><UserText text={finding.path} /></code>;
  switch (finding.kind) {
    case 'lost':
    case 'changed':
      return finding.inTransit && finding.from ? (
        <>
          {finding.kind} {path} between <UserText text={finding.from.name} /> and {step}
        </>
      ) : (
        <>
          {finding.kind} {path} at {step}
        </>
      );
    case 'duplicated':
      return <>duplicated {step}</>;
    case 'failed':
      return <>failed at {step}</>;
    case 'skipped_step':
      return <>skipped {path}</>;
    case 'overdue':
      return finding.step ? <>overdue before {step}</> : <>overdue</>;
  }
}

/** Which findings the list shows first: what went wrong before what merely changed. */
const PRIORITY: Record<JourneyFinding['kind'], number> = { lost: 0, failed: 1, overdue: 2, skipped_step: 3, duplicated: 4, changed: 5 };

/** The list's findings column: the two that matter most, and how many more. */
export function FindingsCell({ findings }: { findings: JourneyFinding[] }) {
  if (findings.length === 0) return <span className="muted">—</span>;
  const shown = [...findings].sort((a, b) => PRIORITY[a.kind] - PRIORITY[b.kind]).slice(0, 2);
  return (
    <ul className="findings-cell">
      {shown.map((finding, index) => (
        <li key={index} className={`finding finding-${finding.kind}`}>
          <FindingText finding={finding} />
        </li>
      ))}
      {findings.length > shown.length ? <li className="muted">+{findings.length - shown.length} more</li> : null}
    </ul>
  );
}

/** The findings select of the list's filter form (its value goes in the URL as `finding`). */
export function FindingFilter({ value }: { value: string | undefined }) {
  return (
    <label>
      Findings
      <select name="finding" defaultValue={value ?? ''} onChange={(event) => event.currentTarget.form?.requestSubmit()}>
        <option value="">Any</option>
        <FindingKindOptions />
      </select>
    </label>
  );
}

/** The kinds of findings as a select's options, after its "Any". */
export function FindingKindOptions() {
  return (
    <>
      {Object.entries(FINDING_LABELS).map(([kind, label]) => (
        <option key={kind} value={kind}>
          {label}
        </option>
      ))}
    </>
  );
}

/**
 * "Top lost fields" over the list's window: the lost problems with the most journeys (one row
 * per place, expected ones left out, docs/problems.md), each leading to its problem's page.
 */
export function TopLostFields({ project, window }: {
  project: Project;
  window: { since: string; until: string | undefined; environment: string | undefined };
}) {
  const [problems, setProblems] = useState<Problem[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    setError(null);
    const params = { kind: 'lost', sort: 'journeys', since: window.since, environment: window.environment, limit: 5 };
    request<Page<Problem>>(`/v1/projects/${project.id}/problems` + query(params)).then((page) => setProblems(page.items), setError);
  }, [project.id, window.since, window.environment]);
  if (error) return <ErrorMessage error={error} />;
  if (!problems || problems.length === 0) return null;
  return (
    <section className="top-lost" aria-labelledby="top-lost-heading">
      <h2 id="top-lost-heading">Top lost fields</h2>
      <ol>
        {problems.map((problem) => (
          <li key={problem.id}>
            <Link to={`/projects/${project.id}/problems/${problem.id}`}>
              <code>
                <UserText text={problem.path ?? ''} />
              </code>
            </Link>{' '}
            <span className="muted">
              {problem.journeys} {problem.journeys === 1 ? 'journey' : 'journeys'} ·{' '}
              {problem.inTransit && problem.from ? (
                <>
                  between <UserText text={problem.from.name} /> and <UserText text={problem.step?.name ?? ''} />
                </>
              ) : (
                <>
                  at <UserText text={problem.step?.name ?? ''} />
                </>
              )}
              {problem.status === 'regressed' ? <> · <span className="problem-status problem-regressed">regressed</span></> : null}
            </span>
          </li>
        ))}
      </ol>
    </section>
  );
}

/** The journey page's findings, each selecting its step. */
export function JourneyFindings({ findings, onSelect }: { findings: JourneyFinding[]; onSelect: (eventId: string) => void }) {
  if (findings.length === 0) return null;
  return (
    <section className="journey-findings" aria-labelledby="findings-heading">
      <h2 id="findings-heading">Findings</h2>
      <ul>
        {findings.map((finding, index) => (
          <li key={index} className={`finding finding-${finding.kind}`}>
            {finding.step ? (
              <button type="button" className="link-button" onClick={() => onSelect(finding.step!.eventId)}>
                <FindingText finding={finding} />
              </button>
            ) : (
              <FindingText finding={finding} />
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** Markers before a timeline entry: the findings observed at that step. */
export function findingMarkers(findings: JourneyFinding[], eventId: string): ReactNode[] {
  return findings
    .filter((finding) => finding.step?.eventId === eventId)
    .map((finding, index) => (
      <li key={`finding-${index}`} className={`finding-marker finding-${finding.kind}`}>
        <FindingText finding={finding} />
      </li>
    ));
}
